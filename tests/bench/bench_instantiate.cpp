// Instantiating a 10,000-node graph: time and memory of the first run
// (rewrite, prune, place, partition, build kernels, spawn one actor per
// node), then of a later step, and the compile path alone
// (graph::compile_run, the median of --compiles runs). With --graph, the
// compile path alone for a GraphDef or graph file (an imported ResNet50).
//
//   bench_instantiate [--nodes N] [--compiles R]
//   bench_instantiate --graph FILE --fetch T [--feed T]... [--compiles R]
//
// Last output line: {"nodes": ..., "compile_ms": ..., "instantiate_ms":
// ..., "step_ms": ..., "rss_mb_before": ..., "rss_mb_after": ...,
// "rss_mb_growth": ...}; with --graph {"graph": ..., "nodes": ...,
// "compile_ms": ...}.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "actorflow/actors/session.hpp"
#include "actorflow/devices/device_set.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/compile_run.hpp"
#include "actorflow/interop/any_graph.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "common/process_memory.hpp"
#include "json_line.hpp"

using namespace actorflow;

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
           std::chrono::steady_clock::now() - t)
    .count();
}

/// The median milliseconds of `runs` compiles of `sig` over `g`
/// (`graph::compile_run`, the standard passes) on two CPU devices, as a
/// session's first run compiles it; negative after printing the error.
double median_compile_ms(graph::graph g, const graph::run_signature& sig,
                         int runs) {
  ops::op_registry registry;
  ops::kernel_registry kernels;
  if (auto st = ops::register_ops(registry); !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return -1;
  }
  ops::register_cpu_kernels(kernels);
  auto devs = devices::device_set::make_local(2, 1);
  std::vector<std::string> names;
  for (const auto& d : devs.all())
    names.push_back(d->name());
  graph::graph_types types;
  if (auto st = graph::validate(g, registry, &types); !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return -1;
  }
  auto pipeline = graph::pass_pipeline::standard();
  graph::compile_options opts{registry, kernels, pipeline,
                              {},       names,   names.front()};
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    graph::compiled_run run;
    auto t0 = std::chrono::steady_clock::now();
    if (auto st = graph::compile_run(g, types, sig, opts, &run); !st.is_ok()) {
      std::fprintf(stderr, "%s\n", st.to_string().c_str());
      return -1;
    }
    times.push_back(ms_since(t0));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// The --graph mode: the compile path alone for the graph in `path`.
int compile_file(const std::string& path, const graph::run_signature& sig,
                 int runs) {
  ops::op_registry registry;
  graph::graph g;
  auto st = ops::register_ops(registry);
  if (st.is_ok())
    st = interop::load_any_graph(path, registry, &g);
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  auto ms = median_compile_ms(g, sig, runs);
  if (ms < 0)
    return 1;
  std::printf("%s: %zu nodes, compile %.1f ms (median of %d)\n", path.c_str(),
              g.size(), ms, runs);
  bench::print_json_line({{"graph", path},
                          {"nodes", g.size()},
                          {"compile_ms", bench::rounded(ms, 1)}});
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  int nodes = 10000;
  int compiles = 5;
  std::string file;
  graph::run_signature file_sig;
  CLI::App app{"Time and RSS of instantiating an N-node graph: 100 chains of "
               "Add/Mul/Relu over two devices; or the compile time of a "
               "graph file"};
  app.add_option("--nodes", nodes, "Nodes in the graph")->capture_default_str();
  app
    .add_option("--compiles", compiles,
                "Compiles timed for compile_ms (the median is printed)")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  auto graph_opt
    = app
        .add_option("--graph", file,
                    "A GraphDef (.pb, .pbtxt) or graph file to compile "
                    "instead")
        ->check(CLI::ExistingFile);
  app.add_option("--feed", file_sig.feeds, "A fed tensor of --graph (x:0)")
    ->needs(graph_opt);
  app
    .add_option("--fetch", file_sig.fetches,
                "A fetched tensor of --graph (y:0)")
    ->needs(graph_opt);
  CLI11_PARSE(app, argc, argv);
  if (!file.empty())
    return compile_file(file, file_sig, compiles);
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
  auto compile_ms = median_compile_ms(
    s.graph_def(), {{x.name()}, {total.name()}, {}}, compiles);
  if (compile_ms < 0)
    return 1;
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
  std::printf("%zu nodes: compile %.1f ms; first run (compile + "
              "instantiate + step) %.1f ms, later step %.1f ms, RSS %.1f -> "
              "%.1f MB\n",
              graph_nodes, compile_ms, first_ms, step_ms, before, after);
  bench::print_json_line(
    {{"nodes", graph_nodes},
     {"compile_ms", bench::rounded(compile_ms, 1)},
     {"instantiate_ms", bench::rounded(first_ms, 1)},
     {"step_ms", bench::rounded(step_ms, 1)},
     {"rss_mb_before", bench::rounded(before, 1)},
     {"rss_mb_after", bench::rounded(after, 1)},
     {"rss_mb_growth", bench::rounded(after - before, 1)}});
  return 0;
}
