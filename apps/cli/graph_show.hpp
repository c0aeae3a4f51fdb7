#pragma once

// `actorflow graph show`: a saved graph, printed.

#include <string>

#include "cli/run.hpp"
#include "common/command.hpp"

namespace actorflow::apps {

/// Options of `actorflow graph show`.
struct graph_show_options {
  /// The graph file, and with `partitions` the step to run (feeds,
  /// fetches, targets, cluster).
  run_options run;
  bool dot = false;        ///< Graphviz's dot rather than a node list.
  bool partitions = false; ///< What a run of the step placed.
  std::string output;      ///< The file to write; empty: standard output.
};

/// Prints a saved graph, as a node list or in dot; with `partitions`,
/// runs the step and prints the partitions it ran. Returns the exit code.
int show_graph(const graph_show_options& options);

/// Adds `actorflow graph show` to `app`.
void add_graph_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
