// P7: a loop of 64 independent iterations, each a 256x256 float MatMul
// (summed into a loop-carried scalar), with parallel_iterations 8, against
// the same 64 products done back to back by OpenBLAS on as many threads
// (the goal: within 1.15x), and against parallel_iterations 1, in the same
// run. Best of several runs each.
//
//   bench_parallel_iterations [--iterations N] [--runs R] [--threads T]
//                             [--blas-threads T] [--size N]
//
// `--size 96` makes each product too small to be cut over the pool
// (884,736 multiply-adds) but large enough to run off its node's actor:
// the speedup then measures how far iterations overlap on the scheduler's
// threads alone.
//
// By default each MatMul already uses both cores (OpenBLAS's threads), so
// parallel_iterations 1 is fast too and the speedup measures what running
// iterations at once adds to that. `--blas-threads 1` makes every MatMul
// single-threaded: the speedup then measures the runtime's concurrency
// alone, the premise of the 1.8x goal.
//
// Last output line: {"p8_ms": ..., "openblas_ms": ..., "ratio": ...,
// "p1_ms": ..., "speedup": ...} (ratio: p8 / openblas; speedup: p1 / p8).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include <CLI/CLI.hpp>
#include <cblas.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "json_line.hpp"

using namespace actorflow;
using core::dtype;

int main(int argc, char** argv) {
  int64_t iterations = 64;
  int runs = 5;
  int blas_threads = 0;
  int threads = 2;
  int64_t size = 256;
  CLI::App app{"P7: a loop of independent 256x256 MatMuls with "
               "parallel_iterations 8 against OpenBLAS back to back and "
               "against parallel_iterations 1"};
  app.add_option("--iterations", iterations, "Loop iterations")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--runs", runs, "Runs of each; the best counts")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app
    .add_option("--threads", threads,
                "Threads of the engine (actors and kernels) and of the "
                "OpenBLAS baseline")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app
    .add_option("--blas-threads", blas_threads,
                "OpenBLAS threads per MatMul (0: the engine's setting, one, "
                "with large products split over the device's threads)")
    ->capture_default_str()
    ->check(CLI::NonNegativeNumber);
  app.add_option("--size", size, "Rows and columns of each product")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  core::tensor a{dtype::float32, {size, size}};
  std::mt19937 gen{3};
  std::uniform_real_distribution<float> dist{-1.0f, 1.0f};
  for (int64_t i = 0; i < a.num_elements(); ++i)
    a.mutable_data<float>()[i] = dist(gen);
  actors::engine_options eo;
  eo.threads_per_device = threads;
  eo.scheduler_threads = threads;
  actors::engine e{eo};
  // The products one after the other through OpenBLAS on `threads`
  // threads, nothing else: what the loop's MatMuls cost at best.
  auto openblas_ms = [&] {
    auto before = openblas_get_num_threads();
    openblas_set_num_threads(threads);
    core::tensor c{dtype::float32, {size, size}};
    double best_ms = 1e30;
    for (int r = 0; r <= runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      for (int64_t i = 0; i < iterations; ++i)
        cblas_sgemm(
          CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(size),
          static_cast<int>(size), static_cast<int>(size), 1.0f, a.data<float>(),
          static_cast<int>(size), a.data<float>(), static_cast<int>(size), 0.0f,
          c.mutable_data<float>(), static_cast<int>(size));
      double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
      if (r > 0)
        best_ms = std::min(best_ms, ms);
    }
    openblas_set_num_threads(before);
    return best_ms;
  };
  auto baseline = openblas_ms();
  if (blas_threads > 0)
    openblas_set_num_threads(blas_threads);
  double best[2] = {1e30, 1e30};
  float sums[2] = {0, 0};
  for (int which : {0, 1}) {
    graph::scope s;
    auto m = graph::constant(s.sub("a"), a);
    graph::while_options options;
    options.parallel_iterations = which == 0 ? 1 : 8;
    auto outs = graph::while_loop(
      s,
      [&](const graph::scope& c, const std::vector<graph::output>& v) {
        return graph::less(
          c, v[0], graph::constant(c, double(iterations), dtype::int64));
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        // Each iteration's product depends on nothing but the loop
        // constant (and the iteration it runs in).
        auto product = graph::matmul(b, m, m);
        auto total = graph::reduce_sum(b, product, {0, 1});
        return std::vector<graph::output>{
          graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)),
          graph::add(b, v[1], total)};
      },
      {graph::constant(s, 0.0, dtype::int64), graph::constant(s, 0.0)},
      options);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.status().to_string().c_str());
      return 1;
    }
    actors::session sess{e};
    if (auto st = sess.extend(s.graph_def()); !st.is_ok()) {
      std::fprintf(stderr, "%s\n", st.to_string().c_str());
      return 1;
    }
    for (int r = 0; r <= runs; ++r) { // the first run compiles
      std::vector<core::tensor> out;
      auto t0 = std::chrono::steady_clock::now();
      auto st = sess.run({}, {outs[1].name()}, {}, &out);
      double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
      if (!st.is_ok()) {
        std::fprintf(stderr, "%s\n", st.to_string().c_str());
        return 1;
      }
      sums[which] = out[0].scalar_value<float>();
      if (r > 0)
        best[which] = std::min(best[which], ms);
    }
  }
  if (std::abs(sums[0] - sums[1]) > 1e-3f * std::max(1.0f, std::abs(sums[0]))) {
    std::fprintf(stderr, "results differ: %g and %g\n", sums[0], sums[1]);
    return 1;
  }
  std::printf("%lld iterations: parallel_iterations 1: %.2f ms, 8: %.2f ms; "
              "OpenBLAS back to back on %d threads: %.2f ms\n",
              static_cast<long long>(iterations), best[0], best[1], threads,
              baseline);
  bench::print_json_line({{"p8_ms", bench::rounded(best[1], 2)},
                          {"openblas_ms", bench::rounded(baseline, 2)},
                          {"ratio", bench::rounded(best[1] / baseline, 3)},
                          {"p1_ms", bench::rounded(best[0], 2)},
                          {"speedup", bench::rounded(best[0] / best[1], 3)}});
  return 0;
}
