// P2: microseconds per iteration of a data-dependent while loop with a tiny
// body, the loop of tests/bench/peers/while_loop_torch.py: an
// 8-element x, a cond on sum(x) > 1e6 that is never taken, then
// x = x * 0.5 + 1, for n iterations fed at run time. The result is checked
// (x converges to 2). Also reports the peak RSS, for the memory a long loop
// takes. With --tensor-array each iteration also writes its new x into a
// TensorArray of n elements and carries on with what it reads back (issue
// 37's overhead of an array element per iteration).
//
//   bench_while [--iterations N] [--parallel-iterations P] [--rounds R]
//               [--tensor-array]
//
// Reports the best of R runs of the whole loop: the first run of a process
// shares the cores with OpenBLAS's threads, which spin for about 0.1 s
// after the library loads.
//
// Last output line: {"us_per_iteration": ..., "iterations": ...,
// "peak_rss_mb": ...}

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/tensor_array.hpp"
#include "common/process_memory.hpp"
#include "json_line.hpp"

using namespace actorflow;
using core::dtype;

namespace {} // namespace

int main(int argc, char** argv) {
  int64_t iterations = 100000;
  int64_t parallel = 10;
  int rounds = 3;
  CLI::App app{"P2: microseconds per iteration of a data-dependent while "
               "loop with a tiny body"};
  app.add_option("--iterations", iterations, "Loop iterations")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app
    .add_option("--parallel-iterations", parallel,
                "parallel_iterations of the loop")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "Runs of the loop; the best counts")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  bool trace = false;
  bool tensor_array = false;
  app.add_flag("--tensor-array", tensor_array,
               "Write and read back a TensorArray element per iteration");
  app.add_flag("--trace", trace,
               "Trace every run (run_options::trace): the cost of tracing");
  CLI11_PARSE(app, argc, argv);
  graph::scope s;
  auto n = graph::placeholder(s.sub("n"), dtype::int64, {});
  auto x0 = graph::constant(s.sub("x0"), core::tensor::from_vector<float>(
                                           {8}, {0, 0, 0, 0, 0, 0, 0, 0}));
  graph::while_options options;
  options.parallel_iterations = parallel;
  graph::tensor_array ta;
  std::vector<graph::output> vars{
    graph::constant(s.sub("i0"), 0.0, dtype::int64), x0};
  if (tensor_array) {
    ta = graph::tensor_array::make(s.sub("ta"), graph::cast(s, n, dtype::int32),
                                   {dtype::float32});
    vars.push_back(ta.flow());
  }
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], n);
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto big = graph::greater(b, graph::reduce_sum(b, v[1], {0}),
                                graph::constant(b, 1e6));
      auto x = graph::cond(
        b, big,
        [&](const graph::scope& t) {
          return std::vector<graph::output>{
            graph::mul(t, v[1], graph::constant(t, 0.0))};
        },
        [&](const graph::scope&) { return std::vector<graph::output>{v[1]}; });
      auto next = graph::add(b, graph::mul(b, x[0], graph::constant(b, 0.5)),
                             graph::constant(b, 1.0));
      std::vector<graph::output> out{
        graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)), next};
      if (tensor_array) {
        auto i = graph::cast(b, v[0], dtype::int32);
        auto written = ta.with_flow(v[2]).write(b, i, next);
        out[1] = written.read(b, i);
        out.push_back(written.flow());
      }
      return out;
    },
    vars, options);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.status().to_string().c_str());
    return 1;
  }
  actors::engine e;
  actors::session sess{e};
  if (auto st = sess.extend(s.graph_def()); !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  auto run = [&](int64_t count, core::tensor* out) {
    std::vector<core::tensor> outs_t;
    actors::run_options ro;
    if (trace)
      ro.trace = actors::trace_level::full;
    actors::run_metadata md;
    auto st = sess.run(ro, {{n.name(), core::tensor::scalar(count)}},
                       {outs[1].name()}, {}, &outs_t, &md);
    if (!st.is_ok()) {
      std::fprintf(stderr, "%s\n", st.to_string().c_str());
      std::exit(1);
    }
    *out = outs_t[0];
  };
  core::tensor result;
  run(1000, &result); // compiles and warms up
  double seconds = 0;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    run(iterations, &result);
    double t
      = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
    seconds = r == 0 ? t : std::min(seconds, t);
  }
  if (iterations > 30 && std::abs(result.data<float>()[0] - 2.0f) > 1e-5f) {
    std::fprintf(stderr, "wrong result %g\n", result.data<float>()[0]);
    return 1;
  }
  double us = seconds / double(iterations) * 1e6;
  std::printf("%lld iterations in %.3f s (best of %d): %.3f us per iteration "
              "(%zu nodes in the graph)\n",
              static_cast<long long>(iterations), seconds, rounds, us,
              s.graph_def().size());
  bench::print_json_line(
    {{"us_per_iteration", bench::rounded(us, 3)},
     {"iterations", iterations},
     {"tensor_array", tensor_array},
     {"peak_rss_mb", bench::rounded(test::peak_rss_mb(), 1)}});
  return 0;
}
