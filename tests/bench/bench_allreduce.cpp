// P12: all-reduce of a float tensor among 2 and 4 worker processes (one
// core's worth each, over loopback): each member's 64 MiB variable summed
// by CollectiveAllReduce's ring, beside raw TCP moving 64 MiB from one
// process to another in the same run. Bus bandwidth is what NCCL and
// Horovod report: bytes x 2(n-1)/n per second, the traffic each member
// sends and receives, so that it compares with a link's speed whatever n.
//
//   bench_allreduce [--steps N] [--megabytes M] [--members 2,4]
//
// Last output line: {"busbw_gbps_2": ..., "ms_2": ..., "busbw_gbps_4":
// ..., "ms_4": ..., "raw_tcp_gbps": ..., "raw_exchange_gbps": ...,
// "ratio": ..., "ratio_exchange": ...}. ratio is the bus bandwidth of 2
// members over raw TCP between two processes (one way); ratio_exchange
// over raw TCP carrying the ring's own traffic between two processes
// (both ways at once, no arithmetic): on loopback both share the same
// cores, so that is the ceiling of this machine.

#include <CLI/CLI.hpp>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/collective_ops.hpp"
#include "bench/cluster_bench.hpp"
#include "bench/raw_tcp.hpp"
#include "json_line.hpp"

using namespace actorflow;

namespace {

/// Milliseconds per all-reduce of `elements` floats among `n` workers:
/// the median of rounds of `steps`.
double all_reduce_ms(int n, int64_t elements, int steps) {
  bench::cluster_client cluster{{{"worker", n, 1, 1, {}, {}, {}}}};
  graph::scope s;
  std::vector<std::string> members;
  for (int r = 0; r < n; ++r)
    members.push_back("/job:worker/task:" + std::to_string(r)
                      + "/device:cpu:0");
  std::vector<std::string> fetches;
  for (int r = 0; r < n; ++r) {
    auto at = s.sub("m" + std::to_string(r)).with_device(members[r]);
    auto v = graph::variable(
      at.sub("v"),
      graph::fill(at, {elements}, graph::constant(at, float(r + 1))));
    auto y = graph::collective_all_reduce(at, v, members, 1);
    fetches.push_back(graph::size(at, y).name());
  }
  auto init = s.initializer().name;
  bench::check(s.status());
  actors::session sess{cluster.engine()};
  bench::check(sess.extend(s.graph_def()));
  std::vector<core::tensor> out;
  bench::check(sess.run({}, {}, {init}, &out));
  return bench::us_per_step(sess, {}, fetches, {}, steps, 3) / 1e3;
}

} // namespace

int main(int argc, char** argv) {
  int steps = 5;
  int64_t megabytes = 64;
  std::vector<int> sizes{2, 4};
  CLI::App app{"P12: bus bandwidth of an all-reduce among worker processes, "
               "beside raw TCP between two processes"};
  app.add_option("--steps", steps, "All-reduces per round (3 rounds)")
    ->check(CLI::PositiveNumber);
  app.add_option("--megabytes", megabytes, "MiB of floats per member")
    ->check(CLI::PositiveNumber);
  app.add_option("--members", sizes, "Group sizes to measure")->delimiter(',');
  CLI11_PARSE(app, argc, argv);

  auto bytes = megabytes << 20;
  auto elements = bytes / 4;
  std::vector<double> ms(sizes.size()), busbw(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    auto n = sizes[i];
    ms[i] = all_reduce_ms(n, elements, steps);
    busbw[i] = double(bytes) * 2 * (n - 1) / n / (ms[i] / 1e3) / 1e9;
    std::printf("%d members: %.1f ms per all-reduce of %lld MiB, bus "
                "bandwidth %.2f GB/s\n",
                n, ms[i], static_cast<long long>(megabytes), busbw[i]);
    std::fflush(stdout);
  }
  auto raw = bench::raw_tcp_gbps(static_cast<size_t>(bytes), steps,
                                 bench::peer_in::process);
  auto exchange
    = bench::raw_tcp_exchange_gbps(static_cast<size_t>(bytes), steps);
  std::printf("raw TCP between two processes: %.2f GB/s one way, %.2f GB/s "
              "as a ring's bus bandwidth (both ways at once)\n",
              raw, exchange);
  nlohmann::ordered_json line;
  for (size_t i = 0; i < sizes.size(); ++i) {
    auto n = std::to_string(sizes[i]);
    line["busbw_gbps_" + n] = bench::rounded(busbw[i], 3);
    line["ms_" + n] = bench::rounded(ms[i], 2);
  }
  line["raw_tcp_gbps"] = bench::rounded(raw, 3);
  line["raw_exchange_gbps"] = bench::rounded(exchange, 3);
  line["ratio"] = bench::rounded(busbw[0] / raw, 3);
  line["ratio_exchange"] = bench::rounded(busbw[0] / exchange, 3);
  bench::print_json_line(line);
  return 0;
}
