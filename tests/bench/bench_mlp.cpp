// P3: steady-state milliseconds per training step of the Fashion-MNIST MLP
// of `actorflow train` (784-512-256-10, ReLU, SGD lr 0.1, batch 128), with
// the data already in memory: the same graph, input queue and queue
// runner as the job. Peer: tests/bench/peers/fashion_mlp_torch.py on
// the same machine.
//
//   bench_mlp [--threads 2] [--steps 300] [--warmup 50] [--rounds 3]
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

#include <CLI/CLI.hpp>
#include <cblas.h>

#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/graph/passes.hpp"
#include "bench/cluster_bench.hpp"
#include "common/process_memory.hpp"
#include "fashion_training.hpp"
#include "json_line.hpp"

using namespace actorflow;

namespace {

struct mlp_options {
  int steps = 300;
  int warmup = 50;
  int rounds = 3;
};

/// Milliseconds per step of the training graph on `e`: the best of the
/// rounds, after the warm-up. `cluster`: split over ps and worker.
double ms_per_step(actors::engine& e, const apps::fashion_data& data,
                   bool cluster, const mlp_options& o) {
  graph::scope s{e.context().ops};
  apps::training_options options;
  options.optimizer.learning_rate = 0.1;
  apps::fashion_training g{s, data.train_images.shape().dim(0), options};
  bench::check(s.status());
  auto def = s.graph_def();
  if (cluster) {
    graph::graph_types types;
    bench::check(graph::validate(def, e.context().ops, &types));
    bench::check(graph::place_replica(def, types, "/job:ps/task:0/device:cpu:0",
                                      "/job:worker/task:0/device:cpu:0",
                                      "data/"));
  }
  actors::session sess{e};
  std::vector<core::tensor> out;
  bench::check(sess.extend(def));
  bench::check(sess.run(g.data_feeds(data), {}, {g.init}, &out));
  actors::queue_runner runner{sess, {g.fill}, g.close, g.cancel};
  runner.start();
  auto step = [&] { bench::check(sess.run({}, {g.loss}, {g.train}, &out)); };
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
    std::printf("%s round %d: %.3f ms per step, loss %.4f\n",
                cluster ? "cluster" : "one process", r + 1, ms,
                out[0].scalar_value<float>());
  }
  runner.stop();
  return best;
}

} // namespace

int main(int argc, char** argv) {
  int threads = 2;
  int blas_threads = 0;
  bool cluster = false;
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
  app.add_flag("--cluster", cluster,
               "P10: also split the step over a ps and a worker process");
  int64_t bulk_min = -1;
  app.add_option("--bulk-min-bytes", bulk_min,
                 "With --cluster: passed to the workers (-1: their default)");
  CLI11_PARSE(app, argc, argv);
  actors::engine_options eo;
  eo.threads_per_device = threads;
  eo.scheduler_threads = threads;
  actors::engine e{eo};
  if (blas_threads > 0)
    openblas_set_num_threads(blas_threads);
  apps::fashion_data data;
  bench::check(apps::load_fashion_mnist(e, apps::fashion_mnist_dir, &data));
  auto single = ms_per_step(e, data, false, o);
  if (!cluster) {
    bench::print_json_line(
      {{"ms_per_step", bench::rounded(single, 3)},
       {"samples_per_s", bench::rounded(128e3 / single, 1)},
       {"peak_rss_mb", bench::rounded(test::peak_rss_mb(), 1)}});
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
