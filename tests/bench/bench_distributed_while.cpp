// P8: a while loop whose body alternates between two worker processes: the
// counter and condition on task 0, an 8-element x sent to task 1 for
// x * 0.5 and back to task 0 for + 1 every iteration (so the predicate
// and x cross the network each iteration), beside a raw TCP round trip of
// 32 bytes between two processes (a forked echo) in the same run. The result is
// checked (x converges to 2).
//
//   bench_distributed_while [--iterations N] [--rounds R]
//                           [--bulk-min-bytes B]
//
// Last output line: {"us_per_iteration": ..., "raw_tcp_rtt_us": ...,
// "ratio": ...}

#include <cmath>

#include <CLI/CLI.hpp>

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "bench/cluster_bench.hpp"
#include "bench/raw_tcp.hpp"
#include "json_line.hpp"

using namespace actorflow;
using core::dtype;

int main(int argc, char** argv) {
  int64_t iterations = 1000;
  int rounds = 5;
  CLI::App app{"P8: us per iteration of a while loop whose body alternates "
               "between two worker processes, beside raw TCP"};
  app.add_option("--iterations", iterations, "Loop iterations per step")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "Rounds; the median counts")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  int64_t bulk_min = -1;
  app.add_option("--bulk-min-bytes", bulk_min,
                 "Passed to the workers (-1: their default)");
  CLI11_PARSE(app, argc, argv);

  bench::cluster_client cluster{
    {{"worker", 2, 1, 1, bench::bulk_args(bulk_min), {}, {}}}};
  graph::scope s;
  auto a = s.with_device("/job:worker/task:0/device:cpu:0");
  auto n = graph::placeholder(a.sub("n"), dtype::int64, {});
  auto x0 = graph::constant(
    a.sub("x0"), core::tensor::from_vector<float>({8}, std::vector<float>(8)));
  auto outs = graph::while_loop(
    a,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], n);
    },
    [&](const graph::scope& body, const std::vector<graph::output>& v) {
      auto far = body.with_device("/job:worker/task:1/device:cpu:0");
      auto half = graph::mul(far, v[1], graph::constant(far, 0.5f));
      return std::vector<graph::output>{
        graph::add(body, v[0], graph::constant(body, int64_t{1})),
        graph::add(body, half, graph::constant(body, 1.0f))};
    },
    {graph::constant(a, int64_t{0}), x0});
  bench::check(s.status());
  actors::session sess{cluster.engine()};
  bench::check(sess.extend(s.graph_def()));
  actors::feed_list feeds{
    {n.name(), core::tensor::scalar<int64_t>(iterations)}};
  std::vector<core::tensor> out;
  bench::check(sess.run(feeds, {outs[1].name()}, {}, &out));
  if (std::fabs(out[0].data<float>()[0] - 2.0f) > 1e-3f) {
    std::fprintf(stderr, "the loop returned %f, not 2\n",
                 out[0].data<float>()[0]);
    return 1;
  }
  std::vector<double> us, raw;
  for (int round = 0; round < rounds; ++round) {
    us.push_back(bench::us_per_step(sess, feeds, {outs[1].name()}, {}, 1, 1)
                 / static_cast<double>(iterations));
    raw.push_back(bench::raw_tcp_rtt_us(32, 1000, 3, bench::peer_in::process));
    std::printf("round %d: %.1f us per iteration, raw TCP round trip %.1f "
                "us\n",
                round + 1, us.back(), raw.back());
  }
  auto p8 = bench::median(us), p8_raw = bench::median(raw);
  bench::print_json_line({{"us_per_iteration", bench::rounded(p8, 1)},
                          {"raw_tcp_rtt_us", bench::rounded(p8_raw, 1)},
                          {"ratio", bench::rounded(p8 / p8_raw, 2)}});
  return 0;
}
