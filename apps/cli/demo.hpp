#pragma once

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

} // namespace actorflow::apps
