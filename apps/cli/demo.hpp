#pragma once

// `actorflow demo`: the white paper's Figure 1 graph over two devices.
#include "common/command.hpp"

namespace actorflow::apps {

/// Options of `actorflow demo`.
struct demo_options {
  int steps = 3;
  int batch = 4;
};

/// Builds the white paper's Figure 1 graph, relu(matmul(W, x) + b), split
/// over cpu:0 and cpu:1, runs it and prints the results. Returns the exit
/// code.
int run_demo(const demo_options& options);

/// Adds `actorflow demo` to `app`.
void add_demo_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
