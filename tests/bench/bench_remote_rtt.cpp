// P6: a 32-byte tensor fed to an Identity on a remote worker process and
// fetched back, through a session, beside a raw TCP ping-pong of 32 bytes
// between two processes (a forked echo, as the traffic is) in the same
// run; and, as the floor under both, a bare CAF request to the
// same worker (its device list: no step, no session) over CAF's BASP.
// Each figure is the median of 5 rounds.
//
//   bench_remote_rtt [--steps N] [--tls]
//
// Last output line: {"us_per_round_trip": ..., "raw_tcp_us": ...,
// "ratio": ..., "caf_request_us": ..., "caf_ratio": ...}

#include <CLI/CLI.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/remote_actor.hpp>
#include <caf/scoped_actor.hpp>

#include "actorflow/graph/builder_ops.hpp"
#include "bench/cluster_bench.hpp"
#include "bench/raw_tcp.hpp"
#include "json_line.hpp"
#include "transport/worker_protocol.hpp"

using namespace actorflow;

namespace {

/// Microseconds per round trip of `n` bare CAF requests (the worker's
/// device list) from a blocking actor of `e` to the worker of `task`.
double caf_request_us(actors::engine& e, const actors::cluster_task& task,
                      int n) {
  auto& sys = e.system();
  auto hdl = e.uses_tls() ? caf::openssl::remote_actor<actors::worker_actor>(
               sys, task.host, task.port)
                          : sys.middleman().remote_actor<actors::worker_actor>(
                            task.host, task.port);
  if (!hdl) {
    std::fprintf(stderr, "cannot reach the worker: %s\n",
                 sys.render(hdl.error()).c_str());
    std::exit(1);
  }
  caf::scoped_actor self{sys};
  auto ask = [&] {
    bool ok = false;
    self->request(*hdl, caf::infinite, actors::devices_atom::value)
      .receive([&](const std::vector<std::string>&) { ok = true; },
               [&](const caf::error&) {});
    if (!ok) {
      std::fprintf(stderr, "the worker did not answer\n");
      std::exit(1);
    }
  };
  for (int i = 0; i < 5; ++i)
    ask();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i)
    ask();
  return std::chrono::duration<double, std::micro>(
           std::chrono::steady_clock::now() - t0)
           .count()
         / n;
}

} // namespace

int main(int argc, char** argv) {
  int steps = 2000;
  CLI::App app{"P6: us per round trip of a 32-byte tensor through an Identity "
               "on a remote worker, beside raw TCP"};
  bool tls = false;
  bench::add_cluster_options(app, &steps, "Round trips per round", &tls);
  CLI11_PARSE(app, argc, argv);

  bench::cluster_client cluster{{{"worker", 1, 1, 1, {}, {}, {}}}, tls};
  graph::scope s;
  auto far = s.with_device("/job:worker/task:0/device:cpu:0");
  auto x = graph::placeholder(far.sub("x"), core::dtype::float32, {8});
  auto y = graph::identity(far.sub("y"), x);
  bench::check(s.status());
  actors::session sess{cluster.engine()};
  bench::check(sess.extend(s.graph_def()));
  actors::feed_list feeds{
    {x.name(), core::tensor::from_vector<float>({8}, std::vector<float>(8))}};

  auto& task = cluster.spec().tasks.front();
  // Each round's figures are medians themselves; the rounds' medians count.
  std::vector<double> us, raw, caf;
  for (int round = 0; round < 5; ++round) {
    us.push_back(bench::us_per_step(sess, feeds, {y.name()}, {}, steps, 3));
    raw.push_back(bench::raw_tcp_rtt_us(32, steps, 3, bench::peer_in::process));
    caf.push_back(caf_request_us(cluster.engine(), task, steps));
    std::printf("round %d: actorflow %.1f us, raw TCP %.1f us, bare CAF "
                "request %.1f us\n",
                round + 1, us.back(), raw.back(), caf.back());
  }
  auto p6 = bench::median(us), p6_raw = bench::median(raw),
       p6_caf = bench::median(caf);
  bench::print_json_line({{"us_per_round_trip", bench::rounded(p6, 1)},
                          {"raw_tcp_us", bench::rounded(p6_raw, 1)},
                          {"ratio", bench::rounded(p6 / p6_raw, 2)},
                          {"caf_request_us", bench::rounded(p6_caf, 1)},
                          {"caf_ratio", bench::rounded(p6_caf / p6_raw, 2)}});
  return 0;
}
