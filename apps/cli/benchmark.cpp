// `actorflow benchmark`: a graph loaded, compiled and run as TensorFlow's
// benchmark_model does, with the first run, steady time and peak memory.

#include "cli/benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>

#include <sys/resource.h>

#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/saved_model_session.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/interop/npy.hpp"
#include "common/flags.hpp"

namespace actorflow::apps {

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start)
    .count();
}

/// The most resident memory this process has had, in MiB.
double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB on Linux
}

/// A feed from `name=file.npy`, or random values for `name=2x3[:dtype]`
/// (uniform in [-1, 1) for floats, [0, 10) for integers; seeded, so the
/// same on every run).
core::status parse_feed(const std::string& spec, std::mt19937& gen,
                        std::pair<std::string, core::tensor>* out) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    return core::invalid_argument_error(
      "--feed '", spec, "' is not name=file.npy or name=D1xD2x...[:dtype]");
  auto name = spec.substr(0, eq), value = spec.substr(eq + 1);
  if (value.size() > 4 && value.compare(value.size() - 4, 4, ".npy") == 0) {
    core::tensor t;
    auto st = interop::load_npy(value, &t);
    if (!st.is_ok())
      return st.prefixed("feed " + name);
    *out = {name, std::move(t)};
    return core::status::ok();
  }
  auto colon = value.find(':');
  auto type_name
    = colon == std::string::npos ? "float32" : value.substr(colon + 1);
  const std::map<std::string, core::dtype> types{
    {"float32", core::dtype::float32},
    {"float64", core::dtype::float64},
    {"int32", core::dtype::int32},
    {"int64", core::dtype::int64}};
  auto found = types.find(type_name);
  auto type = found == types.end() ? core::dtype::invalid : found->second;
  if (type == core::dtype::invalid)
    return core::invalid_argument_error(
      "--feed '", spec, "': dtype '", type_name,
      "' is not float32, float64, int32 or int64");
  std::vector<int64_t> dims;
  std::string dim;
  for (char c : value.substr(0, colon) + "x") {
    if (c != 'x') {
      dim += c;
      continue;
    }
    char* end = nullptr;
    auto n = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || *end != '\0' || n < 0)
      return core::invalid_argument_error("--feed '", spec,
                                          "': a shape is D1xD2x..., got '",
                                          value.substr(0, colon), "'");
    dims.push_back(n);
    dim.clear();
  }
  core::tensor t{type, core::shape{dims}};
  std::uniform_real_distribution<double> real{-1.0, 1.0};
  std::uniform_int_distribution<int> small{0, 9};
  for (int64_t i = 0; i < t.num_elements(); ++i)
    switch (type) {
      case core::dtype::float32:
        t.mutable_data<float>()[i] = static_cast<float>(real(gen));
        break;
      case core::dtype::float64: t.mutable_data<double>()[i] = real(gen); break;
      case core::dtype::int32: t.mutable_data<int32_t>()[i] = small(gen); break;
      default: t.mutable_data<int64_t>()[i] = small(gen);
    }
  *out = {name, std::move(t)};
  return core::status::ok();
}

int fail(const core::status& st) {
  std::fprintf(stderr, "actorflow benchmark: %s\n", st.to_string().c_str());
  return EXIT_FAILURE;
}

/// Prints the kernels' time by op type of one traced step, largest first.
void print_profile(const actors::step_stats& stats) {
  std::map<std::string, std::pair<double, int>> by_op;
  double total = 0;
  for (const auto& d : stats.devices)
    for (const auto& n : d.nodes) {
      auto ms = static_cast<double>(n.end_us - n.start_us) / 1000.0;
      auto& [sum, count] = by_op[n.op];
      sum += ms;
      ++count;
      total += ms;
    }
  std::vector<std::pair<std::string, std::pair<double, int>>> rows(
    by_op.begin(), by_op.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.first > b.second.first;
  });
  std::printf("time by op type (one traced run, kernels summed over "
              "threads):\n");
  for (const auto& [op, v] : rows)
    std::printf("  %-32s %9.3f ms  %5.1f %%  %6d nodes\n", op.c_str(), v.first,
                total > 0 ? 100.0 * v.first / total : 0.0, v.second);
}

/// Warms up and times `o.runs` runs of `step`; prints the steady time.
core::status time_steps(const benchmark_options& o,
                        const std::function<core::status()>& step,
                        std::vector<double>* times) {
  for (int i = 0; i < o.warmup; ++i)
    ACTORFLOW_RETURN_IF_ERROR(step());
  for (int i = 0; i < o.runs; ++i) {
    auto t0 = clock_type::now();
    ACTORFLOW_RETURN_IF_ERROR(step());
    times->push_back(ms_since(t0));
    std::fprintf(stderr, "\rrun %d/%d", i + 1, o.runs);
  }
  if (o.runs > 0)
    std::fprintf(stderr, "\n");
  std::sort(times->begin(), times->end());
  return core::status::ok();
}

/// The summary and the JSON line: what was run, the first run (and the
/// load, when there was one), the steady times, the peak memory.
void print_summary(const benchmark_options& o, const std::string& what,
                   double load_ms, double first_ms,
                   const std::vector<double>& times) {
  auto median = times.empty() ? 0.0 : times[times.size() / 2];
  auto fastest = times.empty() ? 0.0 : times.front();
  auto slowest = times.empty() ? 0.0 : times.back();
  std::printf("steady: %.3f ms per run (median of %d; fastest %.3f, slowest "
              "%.3f)\n",
              median, o.runs, fastest, slowest);
  auto rss = peak_rss_mb();
  std::printf("peak RSS: %.1f MB\n", rss);
  std::printf("{\"graph\": \"%s\", \"load_ms\": %.3f, \"first_run_ms\": "
              "%.3f, \"ms_per_run\": %.4f, \"fastest_ms\": %.4f, "
              "\"slowest_ms\": %.4f, \"runs\": %d, \"peak_rss_mb\": %.1f}\n",
              what.c_str(), load_ms, first_ms, median, fastest, slowest, o.runs,
              rss);
}

/// The SavedModel form: the load (reading, lowering, restoring the
/// variables: TensorFlow's tf.saved_model.load), then runs of a signature
/// fed by input key.
int run_saved_model_benchmark(const benchmark_options& o,
                              const actors::feed_list& feeds) {
  std::map<std::string, core::tensor> inputs(feeds.begin(), feeds.end());
  auto start = clock_type::now();
  actors::engine e{with_threads({}, o.threads)};
  if (auto st = e.init_status(); !st.is_ok())
    return fail(st);
  std::unique_ptr<actors::saved_model_session> m;
  auto st = actors::saved_model_session::open(e, o.saved_model, {"serve"}, &m);
  if (!st.is_ok())
    return fail(st);
  auto load_ms = ms_since(start);
  std::map<std::string, core::tensor> outputs;
  auto step = [&] { return m->run(o.signature, inputs, &outputs); };
  if (st = step(); !st.is_ok())
    return fail(st);
  auto first_ms = ms_since(start);
  std::printf("load (read, lower, restore): %.1f ms\nfirst run (load and "
              "run): %.1f ms\n",
              load_ms, first_ms);
  std::vector<double> times;
  if (st = time_steps(o, step, &times); !st.is_ok())
    return fail(st);
  if (o.profile) {
    actors::run_options ro;
    ro.trace = actors::trace_level::full;
    actors::run_metadata meta;
    if (st = m->run(ro, o.signature, inputs, &outputs, &meta); !st.is_ok())
      return fail(st);
    print_profile(meta.stats);
  }
  print_summary(o, o.saved_model + ":" + o.signature, load_ms, first_ms, times);
  return EXIT_SUCCESS;
}

} // namespace

int run_benchmark(const benchmark_options& o) {
  std::mt19937 gen{1};
  actors::feed_list feeds;
  for (const auto& spec : o.feeds) {
    std::pair<std::string, core::tensor> feed;
    if (auto st = parse_feed(spec, gen, &feed); !st.is_ok())
      return fail(st);
    feeds.push_back(std::move(feed));
  }
  if (!o.saved_model.empty())
    return run_saved_model_benchmark(o, feeds);
  if (o.fetches.empty() && o.targets.empty())
    return fail(
      core::invalid_argument_error("give at least one --fetch or --target"));
  // The first run: the engine, the graph's import, its compilation and
  // one step (TensorFlow's session creation and first run).
  auto start = clock_type::now();
  actors::engine e{with_threads({}, o.threads)};
  if (auto st = e.init_status(); !st.is_ok())
    return fail(st);
  actors::session_options so;
  so.pass_selection = o.passes;
  actors::session sess{e, so};
  std::vector<core::tensor> out;
  auto st = sess.extend(o.graph);
  if (st.is_ok() && !o.inits.empty())
    st = sess.run({}, {}, o.inits, &out).prefixed("--init");
  auto step = [&] { return sess.run(feeds, o.fetches, o.targets, &out); };
  if (st.is_ok())
    st = step();
  if (!st.is_ok())
    return fail(st);
  auto first_ms = ms_since(start);
  std::printf("first run (import, compile, run): %.1f ms\n", first_ms);
  std::vector<double> times;
  st = time_steps(o, step, &times);
  if (!st.is_ok())
    return fail(st);
  if (o.profile) {
    actors::run_options ro;
    ro.trace = actors::trace_level::full;
    actors::run_metadata meta;
    if (st = sess.run(ro, feeds, o.fetches, o.targets, &out, &meta);
        !st.is_ok())
      return fail(st);
    print_profile(meta.stats);
  }
  print_summary(o, o.graph, 0.0, first_ms, times);
  return EXIT_SUCCESS;
}

void add_benchmark_command(CLI::App& app, command_list* out) {
  auto bench = std::make_shared<benchmark_options>();
  auto* cmd = app.add_subcommand(
    "benchmark",
    "Load, compile and run a graph as TensorFlow's benchmark_model does: "
    "the first run's time, the steady time per run, the peak resident "
    "memory; the last line is JSON");
  add_graph_or_saved_model_options(
    cmd, &bench->graph, &bench->saved_model,
    "Or a TensorFlow 2 SavedModel directory: time its load "
    "(tf.saved_model.load's work) and runs of --signature, fed by input key",
    &bench->signature);
  cmd->add_option("--feed", bench->feeds,
                  "name=file.npy, or name=D1xD2x...[:dtype] for "
                  "random values (float32 by default); repeatable");
  cmd->add_option("--fetch", bench->fetches,
                  "A tensor to compute (node or node:output); "
                  "repeatable; with --graph, one or a --target");
  cmd->add_option("--target", bench->targets,
                  "With --graph: a node to run for its effects each "
                  "run (a train op); repeatable");
  cmd->add_option("--init", bench->inits,
                  "With --graph: a node to run once before the first "
                  "run (an initializer), in its time; repeatable");
  cmd->add_option("--runs", bench->runs, "Timed runs")
    ->capture_default_str()
    ->check(int_range(1, 1'000'000));
  cmd->add_option("--warmup", bench->warmup, "Untimed runs after the first")
    ->capture_default_str()
    ->check(int_range(0, 1'000'000));
  cmd->add_flag("--profile", bench->profile,
                "Also print the time by op type of one traced run");
  add_threads_option(cmd, &bench->threads);
  add_graph_passes_option(cmd, &bench->passes);
  out->push_back({cmd, [bench] {
                    if (bench->graph.empty() && bench->saved_model.empty()) {
                      std::fprintf(stderr, "actorflow benchmark: give --graph "
                                           "or --saved-model\n");
                      return EXIT_FAILURE;
                    }
                    return run_benchmark(*bench);
                  }});
}

} // namespace actorflow::apps
