#pragma once

// `actorflow benchmark`, TensorFlow's benchmark_model for our graphs.

#include <string>
#include <vector>

#include "actorflow/graph/graph_passes.hpp"
#include "common/command.hpp"

namespace actorflow::apps {

/// Options of `actorflow benchmark` (TensorFlow's benchmark_model).
struct benchmark_options {
  std::string graph; ///< A GraphDef or a graph file of the engine's.
  /// Or a TensorFlow 2 SavedModel directory and the signature to run.
  std::string saved_model;
  std::string signature = "serving_default";
  /// `name=file.npy`, or `name=D1xD2x...[:dtype]` for random values.
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  /// Nodes run for their effects each run (a training step's train op).
  std::vector<std::string> targets;
  /// Nodes run once before the first run (variable initializers:
  /// benchmark_model's --init_ops), counted in the first run's time.
  std::vector<std::string> inits;
  int runs = 20;        ///< Timed runs after the warm-up.
  int warmup = 2;       ///< Untimed runs after the first.
  int threads = 0;      ///< 0: one per core.
  bool profile = false; ///< Time by op type from a traced run.
  graph::pass_selection passes;
};

/// Loads, compiles and runs a graph as TensorFlow's benchmark_model does:
/// prints the first run's time (import, compile and run), the steady time
/// per run (median, fastest, slowest), the peak resident memory and, with
/// `profile`, the time by op type; its last line is JSON. Returns the
/// exit code.
int run_benchmark(const benchmark_options& options);

/// Adds `actorflow benchmark` to `app`.
void add_benchmark_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
