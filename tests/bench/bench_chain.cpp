// P1: per-node cost of a chain of 1,000 Identity nodes, beside a raw CAF
// chain of 1,000 actors passing an int by plain `send`, in the same run.
//
//   bench_chain [--nodes N] [--runs R] [--in-flight K]
//
// Last output line: {"ns_per_node": ..., "raw_caf_ns_per_node": ...,
// "ratio": ..., "ns_per_node_8_in_flight": ...}

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "json_line.hpp"

using namespace actorflow;
using clock_type = std::chrono::steady_clock;

namespace {

struct options {
  int nodes = 1000;
  int runs = 200;
  int in_flight = 8;
  bool trace = false;
};

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// A raw CAF chain: each actor adds one and sends on; the last one answers
/// the waiting scoped actor.
double raw_caf_ns_per_hop(caf::actor_system& sys, const options& opt) {
  caf::scoped_actor self{sys};
  caf::actor next = caf::actor_cast<caf::actor>(self);
  std::vector<caf::actor> chain;
  for (int i = 0; i < opt.nodes; ++i) {
    next = sys.spawn([next](caf::event_based_actor* a) -> caf::behavior {
      return {[a, next](int x) { a->send(next, x + 1); }};
    });
    chain.push_back(next);
  }
  auto run_once = [&] {
    self->send(next, 0);
    int result = -1;
    self->receive([&](int x) { result = x; });
    if (result != opt.nodes) {
      std::fprintf(stderr, "raw chain returned %d\n", result);
      std::exit(1);
    }
  };
  for (int i = 0; i < 20; ++i)
    run_once();
  auto start = clock_type::now();
  for (int i = 0; i < opt.runs; ++i)
    run_once();
  auto ns = seconds_since(start) * 1e9 / (double(opt.runs) * opt.nodes);
  for (auto& a : chain)
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  return ns;
}

} // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{"P1: ns per node of a chain of N Identity nodes, beside a raw "
               "CAF chain of N actors"};
  app.add_option("--nodes", opt.nodes, "Nodes in the chain")
    ->capture_default_str();
  app.add_option("--runs", opt.runs, "Runs per round")->capture_default_str();
  app.add_option("--in-flight", opt.in_flight, "Steps in flight at once")
    ->capture_default_str();
  app.add_flag("--trace", opt.trace,
               "Trace every step (run_options::trace): the cost of tracing");
  CLI11_PARSE(app, argc, argv);
  // The chain: N Identity nodes on an 8-element tensor. (An Add of a
  // scalar constant would make the constant a second input of every node,
  // i.e. two messages per node; see docs/performance.md.)
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {8});
  auto y = x;
  for (int i = 0; i < opt.nodes; ++i)
    y = graph::identity(s, y);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.status().to_string().c_str());
    return 1;
  }
  actors::engine_options eopt;
  eopt.num_cpu_devices = 1;
  actors::engine e{eopt};
  actors::session sess{e};
  if (auto st = sess.extend(s.graph_def()); !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  auto input
    = core::tensor::from_vector<float>({8}, std::vector<float>(8, 1.0f));
  actors::run_request req{{{x.name(), input}}, {y.name()}, {}};
  if (opt.trace) {
    req.want_metadata = true;
    req.trace = actors::trace_level::full;
  }
  auto check = [&](const core::tensor& out) {
    if (out.data<float>()[0] != 1.0f) {
      std::fprintf(stderr, "chain returned %f\n", out.data<float>()[0]);
      std::exit(1);
    }
  };
  std::vector<core::tensor> out;
  for (int i = 0; i < 20; ++i) {
    if (auto st = sess.run(req.feeds, req.fetches, {}, &out); !st.is_ok()) {
      std::fprintf(stderr, "%s\n", st.to_string().c_str());
      return 1;
    }
    check(out[0]);
  }
  // Sequential steps through the session actor.
  caf::scoped_actor self{e.system()};
  auto run_seq = [&] {
    auto start = clock_type::now();
    for (int i = 0; i < opt.runs; ++i)
      self->request(sess.handle(), caf::infinite, actors::run_atom::value, req)
        .receive([&](actors::run_result& r) { check(r.outputs[0]); },
                 [&](caf::error& err) {
                   std::fprintf(stderr, "%s\n", e.system().render(err).c_str());
                   std::exit(1);
                 });
    return seconds_since(start) * 1e9 / (double(opt.runs) * opt.nodes);
  };
  // K steps in flight: keep K requests outstanding.
  auto run_pipelined = [&] {
    int sent = 0, received = 0;
    auto start = clock_type::now();
    auto send_one = [&] {
      self->send(sess.handle(), actors::run_atom::value, req);
      ++sent;
    };
    for (int i = 0; i < opt.in_flight && sent < opt.runs; ++i)
      send_one();
    while (received < opt.runs) {
      self->receive([&](actors::run_result& r) { check(r.outputs[0]); },
                    [&](caf::error& err) {
                      std::fprintf(stderr, "%s\n",
                                   e.system().render(err).c_str());
                      std::exit(1);
                    });
      ++received;
      if (sent < opt.runs)
        send_one();
    }
    return seconds_since(start) * 1e9 / (double(opt.runs) * opt.nodes);
  };
  // Interleave ten rounds so that drift on a shared machine hits both alike;
  // report the best round of each.
  double best_af = 1e30, best_raw = 1e30, best_pipe = 1e30;
  for (int round = 0; round < 10; ++round) {
    best_af = std::min(best_af, run_seq());
    best_raw = std::min(best_raw, raw_caf_ns_per_hop(e.system(), opt));
    best_pipe = std::min(best_pipe, run_pipelined());
    std::printf("round %d: actorflow %.1f ns/node, raw CAF %.1f ns/hop, "
                "%d in flight %.1f ns/node\n",
                round + 1, best_af, best_raw, opt.in_flight, best_pipe);
  }
  bench::print_json_line(
    {{"ns_per_node", bench::rounded(best_af, 1)},
     {"raw_caf_ns_per_node", bench::rounded(best_raw, 1)},
     {"ratio", bench::rounded(best_af / best_raw, 3)},
     {"ns_per_node_8_in_flight", bench::rounded(best_pipe, 1)}});
  return 0;
}
