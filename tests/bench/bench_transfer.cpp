// P5: a float tensor moved from worker process A to worker process B over
// loopback -- a variable read on A, its Size taken on B, so the whole
// tensor crosses once per step -- beside a raw TCP socket pair moving the
// same bytes between two threads in the same run. 64 MiB, 1 MiB and 4 KiB.
//
//   bench_transfer [--steps N] [--tls]
//
// Last output line: {"gbps_64m": ..., "raw_tcp_gbps": ..., "ratio": ...,
// "gbps_1m": ..., "gbps_4k": ...}

#include <CLI/CLI.hpp>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "bench/cluster_bench.hpp"
#include "bench/raw_tcp.hpp"
#include "json_line.hpp"

using namespace actorflow;

int main(int argc, char** argv) {
  int steps = 10;
  CLI::App app{"P5: GB/s of a tensor moved between two worker processes, "
               "beside raw TCP"};
  bool tls = false;
  bench::add_cluster_options(app, &steps, "Transfers of 64 MiB per round",
                             &tls);
  CLI11_PARSE(app, argc, argv);

  bench::cluster_client cluster{{{"worker", 2, 1, 1, {}, {}, {}}}, tls};
  graph::scope s;
  auto a = s.with_device("/job:worker/task:0/device:cpu:0");
  auto b = s.with_device("/job:worker/task:1/device:cpu:0");
  struct size_case {
    const char* name;
    int64_t elements;
    int steps;
    std::string fetch;
    double gbps = 0;
  };
  std::vector<size_case> cases{{"64m", 16 << 20, steps, {}},
                               {"1m", 1 << 18, steps * 20, {}},
                               {"4k", 1 << 10, steps * 100, {}}};
  for (auto& c : cases) {
    auto v = graph::variable(a.sub(std::string{"v"} + c.name),
                             graph::zeros(a, {c.elements}));
    c.fetch = graph::size(b, graph::identity(a, v)).name();
  }
  auto init = s.initializer().name;
  bench::check(s.status());
  actors::session sess{cluster.engine()};
  bench::check(sess.extend(s.graph_def()));
  std::vector<core::tensor> out;
  bench::check(sess.run({}, {}, {init}, &out));

  double raw = 0;
  for (int round = 0; round < 3; ++round) {
    for (auto& c : cases) {
      auto us = bench::us_per_step(sess, {}, {c.fetch}, {}, c.steps, 3);
      c.gbps = std::max(c.gbps, double(c.elements) * 4 / us / 1e3);
    }
    raw = std::max(raw, bench::raw_tcp_gbps(size_t{64} << 20, steps));
    std::printf("round %d: 64 MiB %.2f GB/s (raw TCP %.2f), 1 MiB %.2f, "
                "4 KiB %.3f\n",
                round + 1, cases[0].gbps, raw, cases[1].gbps, cases[2].gbps);
  }
  bench::print_json_line({{"gbps_64m", bench::rounded(cases[0].gbps, 3)},
                          {"raw_tcp_gbps", bench::rounded(raw, 3)},
                          {"ratio", bench::rounded(cases[0].gbps / raw, 3)},
                          {"gbps_1m", bench::rounded(cases[1].gbps, 3)},
                          {"gbps_4k", bench::rounded(cases[2].gbps, 4)}});
  return 0;
}
