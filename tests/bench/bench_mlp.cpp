// P3: steady-state milliseconds per training step of the Fashion-MNIST MLP
// of `actorflow train` (784-512-256-10, ReLU, SGD lr 0.1, batch 128), with
// the data already in memory: the same graph, input queue and queue
// runner as the job; P3b with --model cnn: the same for `train --model
// cnn`'s network. Peers: tests/bench/peers/mlp_step_tf1.py,
// mlp_step_jax.py, cnn_step_tf1.py on the same machine. P9b/P9c with
// --device gpu (gpu:0 the default device, ops without a GPU kernel on the
// CPU): peer step_torch_gpu.py [--model cnn] on the same GPU.
//
//   bench_mlp [--model mlp|cnn] [--device cpu|gpu] [--batch 128]
//             [--threads 2] [--steps 300] [--warmup 50] [--rounds 3]
//             [--trace FILE] [--pool-spin-us 300] [--data-dir DIR]
//             [--cluster [--bulk-min-bytes B]]
//
// Reports the best round. Last output line: {"ms_per_step": ...,
// "samples_per_s": ..., "peak_rss_mb": ...}
//
// P10, with --cluster: the same step split over two `actorflow worker`
// processes, the model's variables (and their updates) on a ps task, the
// data, queue and every computation on a worker task; the client runs in
// this process. Measured in the same run beside the single-process step;
// the last line adds "single_process_ms" and "ratio".

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <CLI/CLI.hpp>
#include <cblas.h>

#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/devices/gpu.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/placement.hpp"
#include "bench/cluster_bench.hpp"
#include "common/process_memory.hpp"
#include "json_line.hpp"
#include "models/fashion/fashion_training.hpp"

using namespace actorflow;

namespace {

struct mlp_options {
  apps::model_options model;
  int steps = 300;
  int warmup = 50;
  int rounds = 3;
  actors::session_options session;
  /// Where to write a Chrome trace of a few no-queue steps; empty: none.
  std::string trace;
  /// Rows of the no-queue step's batch.
  int64_t batch = 128;
};

/// Steps traced after the timed rounds with --trace.
constexpr int traced_steps = 5;

/// Times `step` as the options say; returns the best round's milliseconds
/// per step. `what` names it in the progress lines.
template <class Step>
double best_round(const char* what, const mlp_options& o, Step step) {
  for (int i = 0; i < o.warmup; ++i)
    step();
  double best = 1e30;
  for (int r = 0; r < o.rounds; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < o.steps; ++i)
      step();
    auto ms = std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count()
              / o.steps;
    best = std::min(best, ms);
    std::printf("%s round %d: %.3f ms per step\n", what, r + 1, ms);
  }
  return best;
}

/// Milliseconds per step of the model on one batch held in variables:
/// the first `batch` training images and labels, no queue.
double no_queue_ms_per_step(actors::engine& e, const apps::fashion_data& data,
                            const mlp_options& o) {
  graph::scope s{e.context().ops()};
  const auto batch = o.batch;
  auto raw = graph::placeholder(s.sub("raw"), core::dtype::uint8, {batch, 784});
  auto raw_labels
    = graph::placeholder(s.sub("raw_labels"), core::dtype::uint8, {batch});
  auto x = graph::variable(s.sub("x"), apps::fashion_model::pixels(s, raw));
  auto y = graph::variable(s.sub("y"),
                           graph::cast(s, raw_labels, core::dtype::int64));
  apps::fashion_model model{s.sub("model"), o.model};
  auto m = s.sub("model");
  auto xent
    = graph::sparse_softmax_cross_entropy_with_logits(m, model.logits(m, x), y);
  auto loss = graph::reduce_mean(s.sub("loss"), xent.first, {0});
  graph::optimizer sgd;
  sgd.learning_rate = 0.1;
  auto train = graph::minimize(s.sub("train"), loss, model.variables(), sgd);
  auto init = s.initializer().name;
  bench::check(s.status());
  actors::session sess{e, o.session};
  bench::check(sess.extend(s.graph_def()));
  auto first_rows = [batch](const core::tensor& t, int64_t row_bytes) {
    core::shape dims = t.shape();
    std::vector<int64_t> d = dims.dims();
    d[0] = batch;
    core::tensor out{t.dtype(), core::shape{d}};
    std::memcpy(out.mutable_data<uint8_t>(), t.data<uint8_t>(),
                static_cast<size_t>(batch * row_bytes));
    return out;
  };
  std::vector<core::tensor> out;
  bench::check(sess.run({{raw.name(), first_rows(data.train_images, 784)},
                         {raw_labels.name(), first_rows(data.train_labels, 1)}},
                        {}, {init}, &out));
  auto best = best_round("no queue", o, [&] {
    bench::check(sess.run({}, {loss.name()}, {train.name}, &out));
  });
  if (!o.trace.empty()) {
    actors::chrome_trace trace;
    actors::run_options traced;
    traced.trace = actors::trace_level::full;
    for (int i = 0; i < traced_steps; ++i) {
      actors::run_metadata md;
      bench::check(
        sess.run(traced, {}, {loss.name()}, {train.name}, &out, &md));
      trace.add(md.stats);
    }
    bench::check(trace.write(o.trace));
    std::printf("trace of %d steps: %s\n", traced_steps, o.trace.c_str());
  }
  return best;
}

/// Milliseconds of the step's eight matrix products (forward, weight
/// gradients, input gradients but the first layer's) through OpenBLAS on
/// `threads` threads, best of 20 repetitions after 5: the step's limit if
/// nothing else took time.
double gemm_limit_ms(int threads) {
  struct product {
    int m, n, k;
    bool ta, tb;
  };
  const product products[]
    = {{128, 512, 784, false, false}, {128, 256, 512, false, false},
       {128, 10, 256, false, false},  {784, 512, 128, true, false},
       {512, 256, 128, true, false},  {256, 10, 128, true, false},
       {128, 512, 256, false, true},  {128, 256, 10, false, true}};
  std::vector<float> a(784 * 512, 0.5f), b(784 * 512, 0.25f), c(784 * 512);
  auto before = openblas_get_num_threads();
  openblas_set_num_threads(threads);
  auto all = [&] {
    for (const auto& p : products)
      cblas_sgemm(CblasRowMajor, p.ta ? CblasTrans : CblasNoTrans,
                  p.tb ? CblasTrans : CblasNoTrans, p.m, p.n, p.k, 1.0f,
                  a.data(), p.ta ? p.m : p.k, b.data(), p.tb ? p.k : p.n, 0.0f,
                  c.data(), p.n);
  };
  for (int i = 0; i < 5; ++i)
    all();
  double best = 1e30;
  for (int i = 0; i < 20; ++i) {
    auto start = std::chrono::steady_clock::now();
    all();
    best = std::min(best, std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count());
  }
  openblas_set_num_threads(before);
  return best;
}

/// Milliseconds per step of the training graph on `e`: the best of the
/// rounds, after the warm-up. `cluster`: split over ps and worker.
double ms_per_step(actors::engine& e, const apps::fashion_data& data,
                   bool cluster, const mlp_options& o) {
  graph::scope s{e.context().ops()};
  apps::training_options options;
  options.optimizer.learning_rate = 0.1;
  options.model = o.model;
  apps::fashion_training g{s, data.train_images.shape().dim(0), options};
  bench::check(s.status());
  auto def = s.graph_def();
  if (cluster) {
    graph::graph_types types;
    bench::check(graph::validate(def, e.context().ops(), &types));
    bench::check(graph::place_replica(def, types, "/job:ps/task:0/device:cpu:0",
                                      "/job:worker/task:0/device:cpu:0",
                                      "data/"));
  }
  actors::session sess{e, o.session};
  std::vector<core::tensor> out;
  bench::check(sess.extend(def));
  bench::check(sess.run(g.data_feeds(data), {}, {g.init}, &out));
  actors::queue_runner runner{sess, {g.fill}, g.close, g.cancel};
  runner.start();
  auto best = best_round(cluster ? "cluster" : "one process", o, [&] {
    bench::check(sess.run({}, {g.loss}, {g.train}, &out));
  });
  std::printf("loss %.4f\n", out[0].scalar_value<float>());
  runner.stop();
  return best;
}

} // namespace

int main(int argc, char** argv) {
  int threads = 2;
  int blas_threads = 0;
  bool cluster = false;
  bool no_queue_only = false;
  mlp_options o;
  CLI::App app{"P3: milliseconds per training step of the Fashion-MNIST MLP"};
  app
    .add_option("--threads", threads,
                "Threads for kernels, actors and OpenBLAS")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--blas-threads", blas_threads,
                 "OpenBLAS threads per GEMM (0: the engine's setting, one, "
                 "with large products split over the device's threads)");
  app.add_option("--steps", o.steps, "Timed steps per round")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "Untimed steps first")
    ->capture_default_str();
  app.add_option("--rounds", o.rounds, "Rounds; the best counts")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app
    .add_option("--model", o.model.kind,
                "mlp (784-512-256-10) or cnn (train --model cnn's)")
    ->capture_default_str()
    ->check(CLI::IsMember({"mlp", "cnn"}));
  app.add_flag("--cluster", cluster,
               "P10: also split the step over a ps and a worker process");
  app.add_flag("--no-queue-only", no_queue_only,
               "Time only the step on data held in variables (to profile it)");
  app.add_option("--trace", o.trace,
                 "Write a Chrome trace of a few no-queue steps, after the "
                 "timed rounds, to this file (scripts/trace_summary.py, "
                 "scripts/trace_to_png.py read it)");
  std::string passes = "all";
  app
    .add_option("--passes", passes,
                "Graph passes: all, none, "
                  + graph::pass_selection{}.to_string() + ", or all less -NAME")
    ->capture_default_str();
  int64_t pool_spin_us = devices::default_pool_spin.count();
  app
    .add_option("--pool-spin-us", pool_spin_us,
                "How long the CPU devices' pool threads poll for work after "
                "their last task (engine_options::pool_spin; 0: they sleep "
                "at once)")
    ->capture_default_str()
    ->check(CLI::NonNegativeNumber);
  int64_t bulk_min = -1;
  app.add_option("--bulk-min-bytes", bulk_min,
                 "With --cluster: passed to the workers (-1: their default)");
  std::string device = "cpu";
  app
    .add_option("--device", device,
                "Where the model runs: cpu, or gpu (gpu:0; ops without a GPU "
                "kernel on the CPU)")
    ->capture_default_str()
    ->check(CLI::IsMember({"cpu", "gpu"}));
  app.add_option("--batch", o.batch, "Rows of the no-queue step's batch")
    ->capture_default_str()
    ->check(CLI::Range(1, 60000));
  std::string data_dir = apps::fashion_mnist_dir;
  app.add_option("--data-dir", data_dir, "Fashion-MNIST's idx files")
    ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (device == "gpu" && devices::visible_gpus() == 0) {
    std::fprintf(stderr, "bench_mlp: --device gpu: %s\n",
                 devices::cuda_enabled()
                   ? "no GPU is visible to CUDA"
                   : "built without CUDA (configure with nvcc on PATH)");
    return 2;
  }
  bench::check(graph::pass_selection::parse(passes, &o.session.pass_selection));
  actors::engine_options eo;
  eo.threads_per_device = threads;
  eo.scheduler_threads = threads;
  eo.pool_spin = std::chrono::microseconds{pool_spin_us};
  if (device == "gpu")
    eo.default_device = "gpu:0";
  actors::engine e{eo};
  bench::check(e.init_status());
  if (blas_threads > 0)
    openblas_set_num_threads(blas_threads);
  apps::fashion_data data;
  bench::check(apps::load_fashion_mnist(e, data_dir, &data));
  if (no_queue_only && !cluster) {
    auto no_queue = no_queue_ms_per_step(e, data, o);
    bench::print_json_line(
      {{"model", o.model.kind},
       {"device", device},
       {"batch", o.batch},
       {"no_queue_ms_per_step", bench::rounded(no_queue, 3)},
       {"no_queue_samples_per_s", bench::rounded(o.batch * 1e3 / no_queue, 1)},
       {"peak_rss_mb", bench::rounded(test::peak_rss_mb(), 1)}});
    return 0;
  }
  auto single = ms_per_step(e, data, false, o);
  if (!cluster) {
    auto no_queue = no_queue_ms_per_step(e, data, o);
    nlohmann::ordered_json result
      = {{"model", o.model.kind},
         {"device", device},
         {"ms_per_step", bench::rounded(single, 3)},
         {"no_queue_ms_per_step", bench::rounded(no_queue, 3)},
         {"samples_per_s", bench::rounded(128e3 / single, 1)},
         {"peak_rss_mb", bench::rounded(test::peak_rss_mb(), 1)}};
    if (o.model.kind == "mlp" && device == "cpu") {
      auto limit = gemm_limit_ms(threads);
      std::printf("GEMM-bound limit (OpenBLAS, %d threads): %.3f ms\n", threads,
                  limit);
      result["gemm_limit_ms"] = bench::rounded(limit, 3);
    }
    bench::print_json_line(result);
    return 0;
  }
  bench::cluster_client procs{
    {{"ps", 1, 1, threads, bench::bulk_args(bulk_min), {}, {}},
     {"worker", 1, 1, threads, bench::bulk_args(bulk_min), {}, {}}}};
  auto split = ms_per_step(procs.engine(), data, true, o);
  bench::print_json_line(
    {{"ms_per_step", bench::rounded(split, 3)},
     {"samples_per_s", bench::rounded(128e3 / split, 1)},
     {"peak_rss_mb", bench::rounded(test::peak_rss_mb(), 1)},
     {"single_process_ms", bench::rounded(single, 3)},
     {"ratio", bench::rounded(split / single, 3)}});
  return 0;
}
