// `actorflow train autoencoder`: a deep autoencoder pretrained as a stack
// of RBMs, unrolled and fine-tuned, then the test set's codes.

#include <cstdio>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/rbm.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "models/energy/energy.hpp"
#include "models/energy/energy_job.hpp"
#include "training/train.hpp"

namespace actorflow::apps {

using core::dtype;
using core::tensor;
using graph::output;

int run_train_autoencoder(const energy_options& o) {
  energy_job job{o};
  auto st = job.load();
  if (!st.is_ok())
    return train_fail(st.to_string());
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
    return train_fail(st.to_string());
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
