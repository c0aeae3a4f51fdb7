// Fashion-MNIST's classifiers as a training job: the images sharded over
// the replicas, the training graph, and the epochs with the test accuracy
// (and a mixture of experts' loads) after each.

#include "models/fashion/fashion_job.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/interop/summary_writer.hpp"
#include "models/fashion/fashion_training.hpp"
#include "training/progress_line.hpp"
#include "training/step_tracer.hpp"

namespace actorflow::apps {

namespace {

using clock_type = std::chrono::steady_clock;

/// Rows `index`, `index + count`, ... of `x` (the first dimension).
core::tensor every_nth(const core::tensor& x, int64_t index, int64_t count) {
  auto rows = x.shape().dim(0);
  auto row_bytes = rows > 0 ? x.bytes() / static_cast<size_t>(rows) : 0;
  auto n = (rows - index + count - 1) / count;
  auto dims = x.shape().dims();
  dims[0] = n;
  core::tensor out{x.dtype(), core::shape{dims}};
  auto* dst = static_cast<char*>(out.raw_mutable_data());
  const auto* src = static_cast<const char*>(x.raw_data());
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + static_cast<size_t>(i) * row_bytes,
                src + static_cast<size_t>(index + i * count) * row_bytes,
                row_bytes);
  return out;
}

} // namespace

std::string classifier_options_from(const train_options& o,
                                    training_options* t) {
  if (o.dataset != "fashion-mnist")
    return "unknown dataset '" + o.dataset + "' (fashion-mnist or char-rnn)";
  if (o.restore_what_fits && !o.resume)
    return "--restore-what-fits goes with --resume";
  t->batch = o.batch;
  t->model.kind = o.model;
  t->model.seed = o.seed;
  t->model.hidden = o.hidden;
  if (!graph::optimizer::parse(o.optimizer, &t->optimizer))
    return "unknown optimizer '" + o.optimizer
           + "' (sgd, momentum, nesterov, adagrad, rmsprop or adam)";
  t->optimizer.learning_rate = o.learning_rate;
  return {};
}

namespace {

/// A mixture of experts' share of the epoch's images per expert (read
/// from `g.expert_load`, then reset); empty for other models.
core::status expert_shares(actors::session& sess, const fashion_training& g,
                           std::vector<double>* shares) {
  shares->clear();
  if (g.expert_load.empty())
    return core::status::ok();
  std::vector<core::tensor> out;
  ACTORFLOW_RETURN_IF_ERROR(sess.run({}, {g.expert_load}, {}, &out));
  const auto& rows = out[0];
  double total = 0;
  for (int64_t i = 0; i < rows.num_elements(); ++i)
    total += rows.data<int32_t>()[i];
  for (int64_t i = 0; i < rows.num_elements(); ++i)
    shares->push_back(total > 0 ? rows.data<int32_t>()[i] / total : 0.0);
  return sess.run({}, {}, {g.reset_load}, &out);
}

/// The shares as "12.5 % 13.1 % ...".
std::string shares_text(const std::vector<double>& shares) {
  std::string text;
  char buf[32];
  for (auto v : shares) {
    std::snprintf(buf, sizeof buf, "%s%.1f%%", text.empty() ? "" : " ",
                  100 * v);
    text += buf;
  }
  return text;
}

/// An epoch's end in TensorBoard: the test accuracy and the epoch's
/// samples per second, at global step `step`.
core::status log_epoch(interop::summary_writer& w, int64_t step,
                       double accuracy, double samples_per_s,
                       const std::vector<double>& expert_shares) {
  ACTORFLOW_RETURN_IF_ERROR(w.add_scalar("accuracy", accuracy, step));
  ACTORFLOW_RETURN_IF_ERROR(w.add_scalar("samples_per_s", samples_per_s, step));
  for (size_t i = 0; i < expert_shares.size(); ++i)
    ACTORFLOW_RETURN_IF_ERROR(
      w.add_scalar("expert_load/" + std::to_string(i), expert_shares[i], step));
  return w.flush();
}

/// Trains from `step` to `o.epochs` epochs of `steps_per_epoch`, with the
/// input queue's runner, a progress line, the test accuracy after each
/// epoch and, given `checkpoints`, a checkpoint; prints the JSON line.
/// `after_step`, if not empty, is run after each training step (a
/// synchronous replica's part of the step); `gauges`, if not null, are
/// set after each step. Returns the exit code.
int train_epochs(actors::session& sess, const fashion_training& g,
                 const fashion_data& data, const train_options& o,
                 int64_t steps_per_epoch, int64_t step,
                 actors::checkpoint_manager* checkpoints,
                 const std::string& after_step, training_gauges* gauges) {
  std::vector<core::tensor> out;
  actors::queue_runner runner{sess, {g.fill}, g.close, g.cancel};
  runner.start();
  auto evaluate = [&](double* accuracy) {
    auto st = sess.run(
      {{g.eval_images, data.test_images}, {g.eval_labels, data.test_labels}},
      {g.correct}, {}, &out);
    if (st.is_ok())
      *accuracy = out[0].scalar_value<int32_t>()
                  / static_cast<double>(data.test_labels.num_elements());
    return st;
  };
  progress_line progress{!o.quiet, isatty(STDERR_FILENO) != 0};
  progress.report_to(gauges);
  step_tracer tracer{o.trace, o.trace_steps};
  std::unique_ptr<interop::summary_writer> summaries;
  if (!o.logdir.empty()) {
    auto st = interop::summary_writer::open(o.logdir, &summaries);
    if (st.is_ok())
      st = summaries->add_graph(g.scope.graph_def());
    if (!st.is_ok()) {
      runner.stop();
      return train_fail(st.to_string());
    }
    if (!o.quiet)
      std::fprintf(stderr, "TensorBoard events go to %s\n",
                   summaries->path().c_str());
  }
  double accuracy = 0, train_seconds = 0;
  int64_t trained = 0;
  std::vector<double> shares;
  auto first_epoch = static_cast<int>(step / steps_per_epoch);
  for (int epoch = first_epoch; epoch < o.epochs; ++epoch) {
    auto start = clock_type::now();
    double loss = 0;
    auto first_k = step - epoch * steps_per_epoch;
    for (auto k = first_k; k < steps_per_epoch; ++k) {
      actors::run_metadata md;
      bool summarise = summaries != nullptr && step % o.summary_every == 0;
      auto fetches = summarise ? std::vector<std::string>{g.loss, g.summaries}
                               : std::vector<std::string>{g.loss};
      auto st
        = sess.run(tracer.options(step), {}, fetches, {g.train}, &out, &md);
      tracer.add(step, md);
      if (st.is_ok() && summarise)
        st = summaries->add_summary(out[1].scalar_value<std::string>(), step);
      if (st.is_ok())
        st = finish_step(sess, tracer, step, after_step);
      if (!st.is_ok()) {
        runner.stop();
        return train_fail(st.to_string());
      }
      ++step;
      ++trained;
      loss = out[0].scalar_value<float>();
      auto elapsed = seconds_since(start);
      auto rate = static_cast<double>(k + 1) / elapsed;
      progress.show(epoch + 1, o.epochs, k + 1, steps_per_epoch, loss,
                    rate * static_cast<double>(o.batch),
                    static_cast<double>(steps_per_epoch - k - 1) / rate);
    }
    progress.end_line();
    auto epoch_seconds = seconds_since(start);
    train_seconds += epoch_seconds;
    auto st = evaluate(&accuracy);
    if (st.is_ok())
      st = expert_shares(sess, g, &shares);
    if (st.is_ok() && checkpoints != nullptr)
      st = checkpoints->save(step);
    if (st.is_ok() && summaries != nullptr)
      st = log_epoch(*summaries, step, accuracy,
                     static_cast<double>((steps_per_epoch - first_k) * o.batch)
                       / epoch_seconds,
                     shares);
    if (!st.is_ok()) {
      runner.stop();
      return train_fail(st.to_string());
    }
    if (!o.quiet)
      std::fprintf(stderr,
                   "epoch %d/%d: loss %.4f, test accuracy %.4f, %.1f s%s\n",
                   epoch + 1, o.epochs, loss, accuracy, epoch_seconds,
                   checkpoints != nullptr
                     ? (", checkpoint " + checkpoints->path(step)).c_str()
                     : "");
    if (!o.quiet && !shares.empty())
      std::fprintf(stderr, "  images per expert: %s\n",
                   shares_text(shares).c_str());
  }
  runner.stop();
  if (!runner.status().is_ok())
    return train_fail("the input queue's runner failed: "
                      + runner.status().to_string());
  tracer.warn_if_untraced(step);
  if (trained == 0) {
    // Nothing left to train (resumed after the last epoch): report the
    // restored model.
    auto st = evaluate(&accuracy);
    if (!st.is_ok())
      return train_fail(st.to_string());
    say_nothing_to_train(o, step, steps_per_epoch);
  }
  auto ms_per_step
    = trained > 0 ? 1e3 * train_seconds / static_cast<double>(trained) : 0.0;
  auto samples_per_s
    = train_seconds > 0 ? static_cast<double>(trained * o.batch) / train_seconds
                        : 0.0;
  auto round_to
    = [](double x, double scale) { return std::round(x * scale) / scale; };
  nlohmann::ordered_json line{{"epochs", o.epochs},
                              {"test_accuracy", round_to(accuracy, 1e4)},
                              {"samples_per_s", round_to(samples_per_s, 1e1)},
                              {"ms_per_step", round_to(ms_per_step, 1e3)}};
  if (trained == 0) // no step, no speed
    line["samples_per_s"] = line["ms_per_step"] = nullptr;
  if (!shares.empty()) {
    std::vector<double> rounded;
    for (auto v : shares)
      rounded.push_back(round_to(v, 1e4));
    line["expert_load"] = rounded;
  }
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

/// Fashion-MNIST's MLP or CNN: each replica reads every n-th image and
/// takes its share of each batch.
class fashion_job : public training_job {
public:
  fashion_job(const train_options& o, training_options t) : o_(o), t_(t) {
  }

  core::status load(actors::engine& e, int index, int replicas) override {
    if (o_.batch % replicas != 0)
      return core::status{core::errc::invalid_argument,
                          "--batch " + std::to_string(o_.batch)
                            + " does not split evenly over "
                            + std::to_string(replicas) + " workers"};
    ACTORFLOW_RETURN_IF_ERROR(load_fashion_mnist(e, o_.data_dir, &data_));
    auto total = data_.train_images.shape().dim(0);
    if (replicas > 1) {
      data_.train_images = every_nth(data_.train_images, index, replicas);
      data_.train_labels = every_nth(data_.train_labels, index, replicas);
    }
    t_.batch = o_.batch / replicas;
    // Shards differ by a row at most.
    steps_per_epoch_ = total / replicas / t_.batch;
    if (steps_per_epoch_ < 1)
      return core::status{core::errc::invalid_argument,
                          replicas > 1 ? "--batch is larger than a worker's "
                                         "shard of the data"
                                       : "--batch is larger than the "
                                         "training set"};
    return core::status::ok();
  }

  training_graph build(const graph::scope& s, int sync_replicas,
                       const std::string& sync_device,
                       const std::vector<std::string>& all_reduce) override {
    t_.sync_replicas = sync_replicas;
    t_.sync_device = sync_device;
    t_.all_reduce = all_reduce;
    g_ = std::make_unique<fashion_training>(
      s, data_.train_images.shape().dim(0), t_);
    training_graph out;
    out.init = g_->init;
    out.local_init = g_->data_init;
    out.local_prefix = "data/";
    out.feeds = g_->data_feeds(data_);
    out.global_step = g_->global_step;
    out.sync_apply = g_->sync_apply;
    out.sync_wait = g_->sync_wait;
    out.saver = g_->saver;
    out.checkpoint_dir
      = o_.checkpoint_dir + "/"
        + (o_.checkpoint_name.empty() ? "fashion-mnist-" + o_.model
                                      : o_.checkpoint_name);
    return out;
  }

  int train(actors::session& sess, const train_options& o, int64_t step,
            actors::checkpoint_manager* checkpoints,
            const std::string& after_step, training_gauges* gauges) override {
    auto per_replica = o;
    per_replica.batch = static_cast<int>(t_.batch);
    return train_epochs(sess, *g_, data_, per_replica, steps_per_epoch_, step,
                        checkpoints, after_step, gauges);
  }

  bool place_experts(const std::vector<std::string>& devices) override {
    if (t_.model.kind != "moe")
      return false;
    t_.model.expert_devices = devices;
    return true;
  }

private:
  const train_options& o_;
  training_options t_;
  fashion_data data_;
  int64_t steps_per_epoch_ = 0;
  std::unique_ptr<fashion_training> g_;
};

} // namespace

std::unique_ptr<training_job> make_classifier_job(const train_options& o,
                                                  training_options t) {
  return std::make_unique<fashion_job>(o, std::move(t));
}

std::string make_fashion_job(const train_options& o,
                             std::unique_ptr<training_job>* job) {
  training_options t;
  if (auto err = classifier_options_from(o, &t); !err.empty())
    return err;
  if (o.model != "mlp" && o.model != "cnn")
    return "unknown model '" + o.model + "' (mlp or cnn)";
  *job = make_classifier_job(o, std::move(t));
  return {};
}

} // namespace actorflow::apps
