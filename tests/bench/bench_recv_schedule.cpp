// Recv scheduling (issue 39, item 3): task 0 holds --stages values of
// --mib MiB; task 1 runs a chain of --stages steps, step i adding value i
// (y = tanh(y + v_i)). Sent as soon as they are made, every value lands
// on task 1 as the step starts; scheduled (`session_options::
// schedule_recvs`), each leaves when task 1 nears the step that reads it.
// For each way, fresh worker processes: task 1's peak resident set and the
// median step time.
//
//   bench_recv_schedule [--stages L] [--mib M] [--steps N]
//
// Last output line: {"rss_mib": ..., "rss_mib_scheduled": ...,
// "rss_ratio": ..., "ms": ..., "ms_scheduled": ..., "time_ratio": ...}

#include <CLI/CLI.hpp>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "bench/cluster_bench.hpp"
#include "json_line.hpp"

using namespace actorflow;

namespace {

constexpr const char* task0 = "/job:worker/task:0/device:cpu:0";
constexpr const char* task1 = "/job:worker/task:1/device:cpu:0";

struct outcome {
  double rss_mib = 0;
  double us = 0;
};

/// One run of the chain over fresh worker processes.
outcome measure(bool scheduled, int stages, int64_t mib, int steps) {
  bench::cluster_client pair{{{"worker", 2, 1, 1, {}, {}, {}}}};
  graph::scope s{pair.engine().context().ops()};
  std::vector<int64_t> dims{mib * 1024 * 1024 / 4};
  auto filled = [&](const graph::scope& at, float value) {
    return graph::variable(at,
                           graph::fill(at, dims, graph::constant(at, value)));
  };
  auto y = filled(s.with_device(task1).sub("y0"), 0.5f);
  for (int i = 0; i < stages; ++i) {
    auto name = std::to_string(i);
    auto v = graph::identity(s.with_device(task0).sub("read" + name),
                             filled(s.with_device(task0).sub("v" + name),
                                    0.01f * static_cast<float>(i)));
    auto at = s.with_device(task1).sub("stage" + name);
    y = graph::tanh(at, graph::add(at, y, v));
  }
  auto out = graph::reduce_sum(s.with_device(task1).sub("out"), y, {0});
  auto init = s.initializer().name;
  bench::check(s.status());
  actors::session_options o;
  o.schedule_recvs = scheduled;
  actors::session sess{pair.engine(), o};
  bench::check(sess.extend(s.graph_def()));
  std::vector<core::tensor> r;
  bench::check(sess.run({}, {}, {init}, &r));
  outcome result;
  result.us = bench::us_per_step(sess, {}, {out.name()}, {}, steps, 3);
  result.rss_mib = bench::peak_rss_mib(pair.pid(1));
  return result;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Recv scheduling: the receiver's peak memory and the step "
               "time, values sent at once or as late as possible"};
  app.set_version_flag("--version", "bench_recv_schedule 0.1");
  int stages = 8;
  int64_t mib = 16;
  int steps = 3;
  app.add_option("--stages", stages, "Chain steps, one value each")
    ->check(CLI::Range(1, 64));
  app.add_option("--mib", mib, "MiB per value")->check(CLI::Range(1, 256));
  app.add_option("--steps", steps, "Steps per timed round (3 rounds)")
    ->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  auto at_once = measure(false, stages, mib, steps);
  auto late = measure(true, stages, mib, steps);
  std::printf("%d values of %lld MiB: task 1's peak resident set %.1f MiB "
              "sent at once, %.1f scheduled; a step %.1f ms and %.1f ms\n",
              stages, static_cast<long long>(mib), at_once.rss_mib,
              late.rss_mib, at_once.us / 1e3, late.us / 1e3);
  bench::print_json_line(
    {{"rss_mib", bench::rounded(at_once.rss_mib, 1)},
     {"rss_mib_scheduled", bench::rounded(late.rss_mib, 1)},
     {"rss_ratio", bench::rounded(late.rss_mib / at_once.rss_mib, 2)},
     {"ms", bench::rounded(at_once.us / 1e3, 2)},
     {"ms_scheduled", bench::rounded(late.us / 1e3, 2)},
     {"time_ratio", bench::rounded(late.us / at_once.us, 2)}});
  return 0;
}
