// `actorflow train rbm` and `actorflow train autoencoder`: the energy
// models of SINGA's zoo on Fashion-MNIST, images held in memory and fed a
// batch at a time as floats in [0, 1].

#include "models/energy/energy.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/rbm.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "actorflow/net/npy.hpp"
#include "models/fashion/fashion_data.hpp"
#include "training/progress_line.hpp"
#include "training/train.hpp"

namespace actorflow::apps {

namespace {

using core::dtype;
using core::tensor;
using graph::output;

int fail(const std::string& what) {
  std::fprintf(stderr, "actorflow train: %s\n", what.c_str());
  return 1;
}

/// Rows [begin, begin + n) of uint8 images as floats in [0, 1].
tensor pixels(const tensor& images, int64_t begin, int64_t n) {
  auto width = images.shape().dim(1);
  tensor out{dtype::float32, core::shape{n, width}};
  const auto* src = images.data<uint8_t>() + begin * width;
  auto* dst = out.mutable_data<float>();
  for (int64_t i = 0; i < n * width; ++i)
    dst[i] = static_cast<float>(src[i]) / 255.0f;
  return out;
}

/// An engine, the data and a session: what both jobs start from.
struct energy_job {
  explicit energy_job(const energy_options& o)
    : o_(o), engine_(engine_options(o)), scope_(engine_.context().ops) {
  }

  static actors::engine_options engine_options(const energy_options& o) {
    actors::engine_options eo;
    if (o.threads > 0) {
      eo.threads_per_device = o.threads;
      eo.scheduler_threads = o.threads;
    }
    return eo;
  }

  core::status load() {
    ACTORFLOW_RETURN_IF_ERROR(engine_.init_status());
    ACTORFLOW_RETURN_IF_ERROR(load_fashion_mnist(engine_, o_.data_dir, &data_));
    test_ = pixels(data_.test_images, 0, data_.test_images.shape().dim(0));
    std::error_code ec;
    std::filesystem::create_directories(o_.out, ec);
    if (ec)
      return core::status{core::errc::invalid_argument,
                          "--out " + o_.out + ": " + ec.message()};
    return core::status::ok();
  }

  /// Starts the session on the graph built so far and runs its initializer.
  core::status start() {
    auto init = scope_.initializer();
    ACTORFLOW_RETURN_IF_ERROR(scope_.status());
    session_ = std::make_unique<actors::session>(engine_);
    ACTORFLOW_RETURN_IF_ERROR(session_->extend(scope_.graph_def()));
    return run({}, {}, {init.name});
  }

  core::status run(const actors::feed_list& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<tensor>* out = nullptr) {
    std::vector<tensor> ignored;
    return session_->run(feeds, fetches, targets, out ? out : &ignored);
  }

  /// Runs `target` on every batch of the training set (fed to `x`) for
  /// epoch `epoch` of `epochs`, with a progress line; `*mean` gets the
  /// mean of `value` over the batches.
  core::status epoch(const std::string& what, int epoch, int epochs,
                     const output& x, const std::string& target,
                     const output& value, double* mean) {
    auto n = data_.train_images.shape().dim(0);
    auto steps = n / o_.batch;
    progress_line progress{!o_.quiet, isatty(STDERR_FILENO) != 0, "images/s"};
    auto start = std::chrono::steady_clock::now();
    double sum = 0;
    std::vector<tensor> out;
    for (int64_t k = 0; k < steps; ++k) {
      ACTORFLOW_RETURN_IF_ERROR(
        run({{x.name(), pixels(data_.train_images, k * o_.batch, o_.batch)}},
            {value.name()}, {target}, &out));
      auto v = out[0].scalar_value<float>();
      sum += v;
      auto rate = static_cast<double>(k + 1) / seconds_since(start);
      progress.show(epoch, epochs, k + 1, steps, v, rate * o_.batch,
                    static_cast<double>(steps - k - 1) / rate);
    }
    progress.end_line();
    if (!o_.quiet)
      std::fprintf(stderr, "%s epoch %d/%d: %.1f s\n", what.c_str(), epoch,
                   epochs, seconds_since(start));
    *mean = sum / static_cast<double>(steps);
    return core::status::ok();
  }

  /// Evaluates `value` (a scalar) on the test set fed to `x`.
  core::status on_test(const output& x, const output& value, double* out) {
    std::vector<tensor> t;
    ACTORFLOW_RETURN_IF_ERROR(run({{x.name(), test_}}, {value.name()}, {}, &t));
    *out = t[0].scalar_value<float>();
    return core::status::ok();
  }

  /// Writes `t` to `<out>/<name>.npy`.
  core::status save(const std::string& name, const tensor& t) {
    return net::save_npy(t, o_.out + "/" + name + ".npy");
  }

  /// The first ten test images and `rebuilt` (their reconstructions, [10,
  /// 784]) as reconstructions.npy [2, 10, 784].
  core::status save_reconstructions(const tensor& rebuilt) {
    auto first = pixels(data_.test_images, 0, 10);
    tensor both{dtype::float32, core::shape{2, 10, 784}};
    std::copy_n(first.data<float>(), 7840, both.mutable_data<float>());
    std::copy_n(rebuilt.data<float>(), 7840, both.mutable_data<float>() + 7840);
    return save("reconstructions", both);
  }

  void print_line(nlohmann::ordered_json line) const {
    line["out"] = o_.out;
    std::printf("%s\n", line.dump().c_str());
  }

  const energy_options& o_;
  actors::engine engine_;
  graph::scope scope_;
  fashion_data data_;
  tensor test_;
  std::unique_ptr<actors::session> session_;
};

double rounded(double x) {
  return std::round(x * 1e5) / 1e5;
}

} // namespace

int run_train_rbm(const energy_options& o) {
  energy_job job{o};
  auto st = job.load();
  if (!st.is_ok())
    return fail(st.to_string());
  auto& s = job.scope_;
  auto hidden = o.hidden.at(0);
  auto r
    = graph::rbm::make(s.sub("rbm"), 784, hidden, dtype::float32, {o.seed, 1});
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {o.batch, 784});
  graph::rbm_options ro;
  ro.cd_k = o.cd_k;
  ro.persistent = o.persistent;
  ro.batch = o.batch;
  ro.learning_rate = o.learning_rate;
  ro.seed = {o.seed, 2};
  // Binary visible units: each batch sampled from its pixels.
  auto step = r.train_step(s, graph::rbm::sample(s, x, {o.seed, 3}), ro);
  auto tx = graph::placeholder(s.sub("test_x"), dtype::float32, {-1, 784});
  auto rebuilt = r.visible_probs(s, r.hidden_probs(s, tx));
  auto test_error = graph::reduce_mean(
    s, graph::square(s, graph::sub(s, tx, rebuilt)), {0, 1});
  st = job.start();
  double initial = 0, train_error = 0, test = 0;
  if (st.is_ok())
    st = job.on_test(tx, test_error, &initial);
  if (st.is_ok() && !o.quiet)
    std::fprintf(stderr, "test reconstruction error before training: %.5f\n",
                 initial);
  for (int e = 1; st.is_ok() && e <= o.epochs; ++e) {
    st = job.epoch("rbm", e, o.epochs, x, step.update.name,
                   step.reconstruction_error, &train_error);
    if (st.is_ok())
      st = job.on_test(tx, test_error, &test);
    if (st.is_ok() && !o.quiet)
      std::fprintf(stderr,
                   "  reconstruction error: training batches %.5f, test set "
                   "%.5f\n",
                   train_error, test);
  }
  std::vector<tensor> out;
  if (st.is_ok())
    st = job.run({{tx.name(), pixels(job.data_.test_images, 0, 10)}},
                 {r.w().name(), rebuilt.name()}, {}, &out);
  if (st.is_ok())
    st = job.save("filters", out[0]);
  if (st.is_ok())
    st = job.save_reconstructions(out[1]);
  if (!st.is_ok())
    return fail(st.to_string());
  if (!o.quiet)
    std::fprintf(stderr,
                 "filters.npy and reconstructions.npy in %s; "
                 "scripts/energy_to_png.py %s draws them\n",
                 o.out.c_str(), o.out.c_str());
  job.print_line({{"model", "rbm"},
                  {"hidden", hidden},
                  {"cd_k", o.cd_k},
                  {"persistent", o.persistent},
                  {"epochs", o.epochs},
                  {"initial_test_error", rounded(initial)},
                  {"train_error", rounded(train_error)},
                  {"test_error", rounded(test)}});
  return 0;
}

int run_train_autoencoder(const energy_options& o) {
  energy_job job{o};
  auto st = job.load();
  if (!st.is_ok())
    return fail(st.to_string());
  auto& s = job.scope_;
  auto layers = o.hidden;
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {o.batch, 784});
  auto tx = graph::placeholder(s.sub("test_x"), dtype::float32, {-1, 784});
  // The stack of RBMs, each trained on the hidden probabilities of the
  // ones below (the code layer's units linear, at 1/100 of the rate).
  std::vector<graph::rbm> rbms;
  std::vector<graph::rbm_step> steps;
  auto input = x;
  int64_t below = 784;
  for (size_t i = 0; i < layers.size(); ++i) {
    auto ls = s.sub("pretrain_" + std::to_string(i + 1));
    bool code = i + 1 == layers.size();
    rbms.push_back(graph::rbm::make(ls, below, layers[i], dtype::float32,
                                    {o.seed, static_cast<int64_t>(10 + i)}));
    graph::rbm_options ro;
    ro.cd_k = o.cd_k;
    ro.persistent = o.persistent;
    ro.batch = o.batch;
    ro.learning_rate = code ? o.learning_rate / 100 : o.learning_rate;
    ro.linear_hidden = code;
    ro.seed = {o.seed, static_cast<int64_t>(20 + i)};
    auto v0 = i == 0 ? graph::rbm::sample(ls, input, {o.seed, 3}) : input;
    steps.push_back(rbms.back().train_step(ls, v0, ro));
    input = rbms.back().hidden_probs(ls, input, code);
    below = layers[i];
  }
  // The unrolled autoencoder: the encoder from each RBM's weights and
  // hidden biases, the decoder from their transposes and visible biases.
  auto net = s.sub("autoencoder");
  std::vector<output> vars, copies;
  auto copy_of = [&](const std::string& name, const output& from) {
    // Zeros of the RBM's shape until `unroll` copies its values.
    auto v
      = graph::variable(net.sub(name), graph::zeros(net.sub(name + "_init"),
                                                    from.shape().dims()));
    vars.push_back(v);
    copies.push_back(graph::assign(net.sub(name + "_from_rbm"), v, from));
    return v;
  };
  auto n = layers.size();
  std::vector<output> enc_w, enc_b, dec_w, dec_b;
  for (size_t i = 0; i < n; ++i) {
    auto tag = std::to_string(i + 1);
    enc_w.push_back(copy_of("encoder_w" + tag, rbms[i].w()));
    enc_b.push_back(copy_of("encoder_b" + tag, rbms[i].hidden_bias()));
    dec_w.push_back(
      copy_of("decoder_w" + tag, graph::transpose(net, rbms[i].w(), {1, 0})));
    dec_b.push_back(copy_of("decoder_b" + tag, rbms[i].visible_bias()));
  }
  std::vector<graph::operation> copy_ops;
  for (const auto& c : copies)
    copy_ops.push_back(c.op());
  auto unroll
    = graph::no_op(net.sub("unroll").with_control_dependencies(copy_ops));
  auto encode = [&](const output& in) {
    auto h = in;
    for (size_t i = 0; i < n; ++i) {
      h = graph::add(net, graph::matmul(net, h, enc_w[i]), enc_b[i]);
      if (i + 1 < n)
        h = graph::sigmoid(net, h);
    }
    return h;
  };
  auto decode_logits = [&](const output& code) {
    auto h = code;
    for (size_t i = n; i-- > 0;) {
      h = graph::add(net, graph::matmul(net, h, dec_w[i]), dec_b[i]);
      if (i > 0)
        h = graph::sigmoid(net, h);
    }
    return h;
  };
  // Fine-tuning: cross entropy of the pixels against the output's logits,
  // softplus(z) - x z, stable for any z.
  auto logits = decode_logits(encode(x));
  auto xent = graph::reduce_mean(
    net,
    graph::sub(net, graph::softplus(net, logits), graph::mul(net, x, logits)),
    {0, 1});
  graph::optimizer adam;
  adam.kind = graph::optimizer::algorithm::adam;
  adam.learning_rate = 1e-3;
  auto finetune = graph::minimize(net.sub("finetune"), xent, vars, adam);
  auto test_codes = encode(tx);
  auto rebuilt = graph::sigmoid(net, decode_logits(test_codes));
  auto test_error = graph::reduce_mean(
    net, graph::square(net, graph::sub(net, tx, rebuilt)), {0, 1});
  st = job.start();
  double error = 0, pretrained = 0, test = 0;
  for (size_t i = 0; st.is_ok() && i < n; ++i)
    for (int e = 1; st.is_ok() && e <= o.epochs; ++e) {
      st = job.epoch("pretraining RBM " + std::to_string(i + 1) + " ("
                       + std::to_string(i == 0 ? 784 : layers[i - 1]) + "-"
                       + std::to_string(layers[i]) + ")",
                     e, o.epochs, x, steps[i].update.name,
                     steps[i].reconstruction_error, &error);
      if (st.is_ok() && !o.quiet)
        std::fprintf(stderr, "  its reconstruction error: %.5f\n", error);
    }
  if (st.is_ok())
    st = job.run({}, {}, {unroll.name});
  if (st.is_ok())
    st = job.on_test(tx, test_error, &pretrained);
  if (st.is_ok() && !o.quiet)
    std::fprintf(stderr,
                 "unrolled: test reconstruction error %.5f before "
                 "fine-tuning\n",
                 pretrained);
  for (int e = 1; st.is_ok() && e <= o.finetune_epochs; ++e) {
    st = job.epoch("fine-tuning", e, o.finetune_epochs, x, finetune.name, xent,
                   &error);
    if (st.is_ok())
      st = job.on_test(tx, test_error, &test);
    if (st.is_ok() && !o.quiet)
      std::fprintf(stderr,
                   "  cross entropy %.5f, test reconstruction error %.5f\n",
                   error, test);
  }
  if (o.finetune_epochs == 0)
    test = pretrained;
  std::vector<tensor> out;
  if (st.is_ok())
    st = job.run({{tx.name(), job.test_}}, {test_codes.name()}, {}, &out);
  if (st.is_ok())
    st = job.save("codes", out[0]);
  if (st.is_ok())
    st = job.save("labels", job.data_.test_labels);
  if (st.is_ok())
    st = job.run({{tx.name(), pixels(job.data_.test_images, 0, 10)}},
                 {rebuilt.name()}, {}, &out);
  if (st.is_ok())
    st = job.save_reconstructions(out[0]);
  if (!st.is_ok())
    return fail(st.to_string());
  if (!o.quiet)
    std::fprintf(stderr,
                 "codes.npy, labels.npy and reconstructions.npy in %s; "
                 "scripts/energy_to_png.py %s draws them\n",
                 o.out.c_str(), o.out.c_str());
  job.print_line({{"model", "autoencoder"},
                  {"layers", layers},
                  {"pretrain_epochs", o.epochs},
                  {"finetune_epochs", o.finetune_epochs},
                  {"pretrained_test_error", rounded(pretrained)},
                  {"test_error", rounded(test)}});
  return 0;
}

} // namespace actorflow::apps
