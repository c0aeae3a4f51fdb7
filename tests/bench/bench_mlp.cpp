// P3: steady-state milliseconds per training step of the Fashion-MNIST MLP
// of `actorflow train` (784-512-256-10, ReLU, SGD lr 0.1, batch 128), with
// the data already in memory: the same graph, input queue and queue
// runner as the job. Peer: ../shared/bench/peers/fashion_mlp_torch.py on
// the same machine.
//
//   bench_mlp [--threads 2] [--steps 300] [--warmup 50] [--rounds 3]
//
// Reports the best round. Last output line: {"ms_per_step": ...,
// "samples_per_s": ..., "peak_rss_mb": ...}

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <cblas.h>

#include "actorflow/actors/queue_runner.hpp"
#include "common/process_memory.hpp"
#include "fashion_training.hpp"

using namespace actorflow;

int main(int argc, char** argv) {
  int threads = 2;
  int steps = 300;
  int warmup = 50;
  int rounds = 3;
  int blas_threads = 0;
  CLI::App app{"P3: milliseconds per training step of the Fashion-MNIST MLP"};
  app
    .add_option("--threads", threads,
                "Threads for kernels, actors and OpenBLAS")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--blas-threads", blas_threads,
                 "OpenBLAS threads per GEMM (0: the engine's setting, one, "
                 "with large products split over the device's threads)");
  app.add_option("--steps", steps, "Timed steps per round")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "Untimed steps first")
    ->capture_default_str();
  app.add_option("--rounds", rounds, "Rounds; the best counts")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  actors::engine_options eo;
  eo.threads_per_device = threads;
  eo.scheduler_threads = threads;
  actors::engine e{eo};
  if (blas_threads > 0)
    openblas_set_num_threads(blas_threads);
  apps::fashion_data data;
  auto st = apps::load_fashion_mnist(e, apps::fashion_mnist_dir, &data);
  if (!st.is_ok()) {
    std::fprintf(stderr, "bench_mlp: %s\n", st.to_string().c_str());
    return 1;
  }
  graph::scope s{e.context().ops};
  apps::training_options options;
  options.optimizer.learning_rate = 0.1;
  apps::fashion_training g{s, data.train_images.shape().dim(0), options};
  actors::session sess{e};
  std::vector<core::tensor> out;
  st = s.status();
  if (st.is_ok())
    st = sess.extend(s.graph_def());
  if (st.is_ok())
    st = sess.run(g.data_feeds(data), {}, {g.init}, &out);
  if (!st.is_ok()) {
    std::fprintf(stderr, "bench_mlp: %s\n", st.to_string().c_str());
    return 1;
  }
  actors::queue_runner runner{sess, {g.fill}, g.close, g.cancel};
  runner.start();
  auto step = [&] {
    auto st = sess.run({}, {g.loss}, {g.train}, &out);
    if (!st.is_ok()) {
      std::fprintf(stderr, "bench_mlp: %s\n", st.to_string().c_str());
      std::exit(1);
    }
  };
  for (int i = 0; i < warmup; ++i)
    step();
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i)
      step();
    auto ms = std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count()
              / steps;
    best = std::min(best, ms);
    std::printf("round %d: %.3f ms per step, loss %.4f\n", r + 1, ms,
                out[0].scalar_value<float>());
  }
  runner.stop();
  std::printf("{\"ms_per_step\": %.3f, \"samples_per_s\": %.1f, "
              "\"peak_rss_mb\": %.1f}\n",
              best, 128e3 / best, test::peak_rss_mb());
  return 0;
}
