#include "training/train.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/devices/gpu.hpp"
#include "actorflow/net/summary_writer.hpp"
#include "models/fashion/fashion_training.hpp"
#include "training/progress_line.hpp"
#include "training/step_tracer.hpp"
#include "training/training_job.hpp"

namespace actorflow::apps {

namespace {

using clock_type = std::chrono::steady_clock;

int fail(const std::string& what) {
  std::fprintf(stderr, "actorflow train: %s\n", what.c_str());
  return 1;
}

} // namespace

int train_fail(const std::string& what) {
  return fail(what);
}

std::string engine_options_from(const train_options& o,
                                actors::engine_options* eo) {
  if (o.threads > 0) {
    eo->threads_per_device = o.threads;
    eo->scheduler_threads = o.threads;
  }
  if (o.device == "gpu") {
    if (devices::visible_gpus() == 0)
      return devices::cuda_enabled()
               ? "--device gpu: no GPU is visible to CUDA"
               : "--device gpu: this actorflow was built without CUDA "
                 "(configure with nvcc on PATH)";
    eo->default_device = "gpu:0";
  }
  return {};
}

std::string training_options_from(const train_options& o, training_options* t) {
  if (o.dataset != "fashion-mnist")
    return "unknown dataset '" + o.dataset + "' (fashion-mnist or char-rnn)";
  if (o.restore_what_fits && !o.resume)
    return "--restore-what-fits goes with --resume";
  t->batch = o.batch;
  t->model.kind = o.model;
  t->model.seed = o.seed;
  if (o.model != "mlp" && o.model != "cnn" && o.model != "moe")
    return "unknown model '" + o.model + "' (mlp, cnn or moe)";
  t->model.hidden = o.hidden;
  if (o.model == "moe") {
    if (o.hidden.size() != 2)
      return "a mixture of experts takes --hidden H1,H2 (each expert's two "
             "layers)";
    if (o.k > o.experts)
      return "--k " + std::to_string(o.k) + " is more than --experts "
             + std::to_string(o.experts);
    t->model.experts = o.experts;
    t->model.k = o.k;
    t->model.expert_devices = o.expert_devices;
  }
  if (!graph::optimizer::parse(o.optimizer, &t->optimizer))
    return "unknown optimizer '" + o.optimizer
           + "' (sgd, momentum, nesterov, adagrad, rmsprop or adam)";
  t->optimizer.learning_rate = o.learning_rate;
  return {};
}

void say_nothing_to_train(const train_options& o, int64_t step,
                          int64_t steps_per_epoch) {
  if (!o.quiet)
    std::fprintf(
      stderr,
      "nothing left to train: the checkpoint is at step %lld, "
      "the end of epoch %lld of --epochs %d; a larger --epochs "
      "trains on from it\n",
      static_cast<long long>(step),
      static_cast<long long>(step / std::max<int64_t>(steps_per_epoch, 1)),
      o.epochs);
}

core::status load_data(actors::engine& e, const train_options& o,
                       fashion_data* data) {
  auto dir = o.data_dir.empty() ? std::string{fashion_mnist_dir} : o.data_dir;
  auto st = load_fashion_mnist(e, dir, data);
  if (!st.is_ok())
    return core::status{
      st.code(),
      st.message()
        + "\n  Fashion-MNIST comes with Debian's dataset-fashion-mnist "
          "(scripts/setup.sh installs it); --data-dir points elsewhere"};
  return st;
}

core::status restore_for_resume(const train_options& o,
                                actors::checkpoint_manager& checkpoints,
                                int64_t* step) {
  if (!o.resume) {
    if (!checkpoints.steps().empty() && !o.quiet)
      std::fprintf(stderr,
                   "starting afresh: the checkpoints in %s will be replaced "
                   "(--resume continues from them)\n",
                   checkpoints.directory().c_str());
    return core::status::ok();
  }
  using fit = actors::checkpoint_manager::fit;
  std::vector<std::string> skipped;
  auto st = checkpoints.restore_latest(
    step, o.restore_what_fits ? fit::what_fits : fit::all, &skipped);
  if (st.code() == core::errc::not_found) {
    std::fprintf(stderr, "no checkpoint in %s: starting afresh\n",
                 checkpoints.directory().c_str());
    return core::status::ok();
  }
  if (st.code() == core::errc::failed_precondition)
    return core::status{
      st.code(),
      st.message()
        + "\n  the model or optimizer differs from the one that wrote it: "
          "train with the same flags, add --restore-what-fits to restore "
          "what fits and initialise the rest, or give another "
          "--checkpoint-dir"};
  ACTORFLOW_RETURN_IF_ERROR(st);
  std::fprintf(stderr, "resumed from %s at step %lld\n",
               checkpoints.path(*step).c_str(), static_cast<long long>(*step));
  for (const auto& name : skipped)
    std::fprintf(stderr,
                 "  not in the checkpoint or different there: "
                 "%s (initialised afresh)\n",
                 name.c_str());
  return core::status::ok();
}

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
core::status log_epoch(net::summary_writer& w, int64_t step, double accuracy,
                       double samples_per_s,
                       const std::vector<double>& expert_shares) {
  ACTORFLOW_RETURN_IF_ERROR(w.add_scalar("accuracy", accuracy, step));
  ACTORFLOW_RETURN_IF_ERROR(w.add_scalar("samples_per_s", samples_per_s, step));
  for (size_t i = 0; i < expert_shares.size(); ++i)
    ACTORFLOW_RETURN_IF_ERROR(
      w.add_scalar("expert_load/" + std::to_string(i), expert_shares[i], step));
  return w.flush();
}

int train_epochs(actors::session& sess, const fashion_training& g,
                 const fashion_data& data, const train_options& o,
                 int64_t steps_per_epoch, int64_t step,
                 actors::checkpoint_manager* checkpoints,
                 const std::string& after_step) {
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
  step_tracer tracer{o.trace, o.trace_steps};
  std::unique_ptr<net::summary_writer> summaries;
  if (!o.logdir.empty()) {
    auto st = net::summary_writer::open(o.logdir, &summaries);
    if (st.is_ok())
      st = summaries->add_graph(g.scope.graph_def());
    if (!st.is_ok()) {
      runner.stop();
      return fail(st.to_string());
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
        return fail(st.to_string());
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
      return fail(st.to_string());
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
    return fail("the input queue's runner failed: "
                + runner.status().to_string());
  tracer.warn_if_untraced(step);
  if (trained == 0) {
    // Nothing left to train (resumed after the last epoch): report the
    // restored model.
    auto st = evaluate(&accuracy);
    if (!st.is_ok())
      return fail(st.to_string());
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

int run_train(const train_options& o) {
  if (o.trace_steps.second <= o.trace_steps.first)
    return fail("--trace-steps FIRST:END needs END > FIRST");
  std::unique_ptr<training_job> job;
  if (auto err = make_training_job(o, &job); !err.empty())
    return fail(err);
  if (o.cluster.given())
    return run_train_task(o);
  actors::engine_options eo;
  if (auto err = engine_options_from(o, &eo); !err.empty())
    return fail(err);
  actors::engine e{eo};
  if (!e.init_status().is_ok())
    return fail(e.init_status().to_string());
  auto st = job->load(e, 0, 1);
  if (!st.is_ok())
    return fail(st.to_string());
  graph::scope s{e.context().ops};
  auto g = job->build(s, 0, {});
  if (!s.ok())
    return fail(s.status().to_string());
  actors::session_options so;
  so.pass_selection = o.passes;
  actors::session sess{e, so};
  std::vector<core::tensor> out;
  st = sess.extend(s.graph_def());
  if (st.is_ok())
    st = sess.run(g.feeds, {}, {g.init}, &out);
  if (!st.is_ok())
    return fail(st.to_string());
  actors::checkpoint_manager checkpoints{sess, g.saver, g.checkpoint_dir,
                                         "model", o.keep};
  int64_t step = 0;
  st = restore_for_resume(o, checkpoints, &step);
  if (!st.is_ok())
    return fail(st.to_string());
  return job->train(sess, o, step, &checkpoints, {});
}

} // namespace actorflow::apps
