#pragma once

#include <string>
#include <vector>

namespace actorflow::apps {

/// Options of `actorflow run`.
struct run_options {
  std::string graph;                ///< A graph file (`net::save_graph`).
  std::string config;               ///< A cluster file; empty: this process.
  std::vector<std::string> feeds;   ///< `name=file.npy`
  std::vector<std::string> fetches; ///< `name` or `name=file.npy`
  std::vector<std::string> targets; ///< Nodes run for their effects.
  int cpus = 2;                     ///< CPU devices of this process.
  int threads = 0;
  std::string trace; ///< A Chrome trace file of the step; empty: none.
};

/// Runs one step of a saved graph, in this process or on the cluster of a
/// cluster file: feeds from `.npy` files, prints each fetched tensor and
/// writes the ones given a file as `.npy`. Returns the exit code.
int run_graph(const run_options& options);

} // namespace actorflow::apps
