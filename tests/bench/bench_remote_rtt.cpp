// P6: a 32-byte tensor fed to an Identity on a remote worker process and
// fetched back, through a session, beside a raw TCP ping-pong of 32 bytes
// in the same run.
//
//   bench_remote_rtt [--steps N]
//
// Last output line: {"us_per_round_trip": ..., "raw_tcp_us": ...,
// "ratio": ...}

#include <CLI/CLI.hpp>

#include "actorflow/graph/builder_ops.hpp"
#include "bench/cluster_bench.hpp"
#include "bench/raw_tcp.hpp"

using namespace actorflow;

int main(int argc, char** argv) {
  int steps = 2000;
  CLI::App app{"P6: us per round trip of a 32-byte tensor through an Identity "
               "on a remote worker, beside raw TCP"};
  app.add_option("--steps", steps, "Round trips per round")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  bench::cluster_client cluster{{{"worker", 1, 1, 1, {}, {}, {}}}};
  graph::scope s;
  auto far = s.with_device("/job:worker/task:0/device:cpu:0");
  auto x = graph::placeholder(far.sub("x"), core::dtype::float32, {8});
  auto y = graph::identity(far.sub("y"), x);
  bench::check(s.status());
  actors::session sess{cluster.engine()};
  bench::check(sess.extend(s.graph_def()));
  actors::feed_list feeds{
    {x.name(), core::tensor::from_vector<float>({8}, std::vector<float>(8))}};

  double best = 1e30, best_raw = 1e30;
  for (int round = 0; round < 5; ++round) {
    best = std::min(best,
                    bench::us_per_step(sess, feeds, {y.name()}, {}, steps, 3));
    best_raw = std::min(best_raw, bench::raw_tcp_rtt_us(32, steps, 3));
    std::printf("round %d: actorflow %.1f us, raw TCP %.1f us\n", round + 1,
                best, best_raw);
  }
  std::printf("{\"us_per_round_trip\": %.1f, \"raw_tcp_us\": %.1f, "
              "\"ratio\": %.2f}\n",
              best, best_raw, best / best_raw);
  return 0;
}
