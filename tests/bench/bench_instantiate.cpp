// Instantiating a 10,000-node graph: time and memory of the first run
// (rewrite, prune, place, partition, build kernels, spawn one actor per
// node), then of a later step.
//
//   bench_instantiate [--nodes N]
//
// Last output line: {"nodes": ..., "instantiate_ms": ..., "step_ms": ...,
// "rss_mb_before": ..., "rss_mb_after": ..., "rss_mb_growth": ...}

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "common/process_memory.hpp"
#include "json_line.hpp"

using namespace actorflow;

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
           std::chrono::steady_clock::now() - t)
    .count();
}

} // namespace

int main(int argc, char** argv) {
  int nodes = 10000;
  CLI::App app{"Time and RSS of instantiating an N-node graph: 100 chains of "
               "Add/Mul/Relu over two devices"};
  app.add_option("--nodes", nodes, "Nodes in the graph")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  // 100 independent chains; each chain alternates Add, Mul and Relu on a
  // 16-element tensor, and every other chain lives on cpu:1. All chains end
  // in one fetched sum.
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {16});
  auto c = graph::constant(s.sub("c"), 0.5);
  int chains = 100, per_chain = nodes / chains + 1;
  graph::output total;
  for (int k = 0; k < chains; ++k) {
    auto cs = s.with_device(k % 2 == 0 ? "cpu:0" : "cpu:1");
    auto y = x;
    for (int i = 0; i < per_chain - 1; ++i)
      y = i % 3 == 0 ? graph::add(cs, y, c)
                     : (i % 3 == 1 ? graph::mul(cs, y, c) : graph::relu(cs, y));
    total = k == 0 ? y : graph::add(s, total, y);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.status().to_string().c_str());
    return 1;
  }
  auto graph_nodes = s.graph_def().size();
  actors::engine e;
  actors::session sess{e};
  if (auto st = sess.extend(s.graph_def()); !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  auto input
    = core::tensor::from_vector<float>({16}, std::vector<float>(16, 1.0f));
  auto before = test::rss_mb();
  auto t0 = std::chrono::steady_clock::now();
  std::vector<core::tensor> out;
  if (auto st = sess.run({{x.name(), input}}, {total.name()}, {}, &out);
      !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  auto first_ms = ms_since(t0);
  auto after = test::rss_mb();
  auto t1 = std::chrono::steady_clock::now();
  if (auto st = sess.run({{x.name(), input}}, {total.name()}, {}, &out);
      !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  auto step_ms = ms_since(t1);
  std::printf("%zu nodes: first run (compile + instantiate + step) %.1f ms, "
              "later step %.1f ms, RSS %.1f -> %.1f MB\n",
              graph_nodes, first_ms, step_ms, before, after);
  bench::print_json_line(
    {{"nodes", graph_nodes},
     {"instantiate_ms", bench::rounded(first_ms, 1)},
     {"step_ms", bench::rounded(step_ms, 1)},
     {"rss_mb_before", bench::rounded(before, 1)},
     {"rss_mb_after", bench::rounded(after, 1)},
     {"rss_mb_growth", bench::rounded(after - before, 1)}});
  return 0;
}
