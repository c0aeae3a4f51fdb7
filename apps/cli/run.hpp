#pragma once

// `actorflow run`: one step of a graph, fed and fetched through .npy files.

#include <string>
#include <vector>

#include "actorflow/actors/session.hpp"
#include "cluster/cluster_source.hpp"
#include "common/command.hpp"

namespace actorflow::apps {

/// Options of `actorflow run`.
struct run_options {
  std::string graph;                ///< A graph file (`net::save_graph`).
  cluster_source cluster;           ///< None given: this process.
  std::vector<std::string> feeds;   ///< `name=file.npy`
  std::vector<std::string> fetches; ///< `name` or `name=file.npy`
  std::vector<std::string> targets; ///< Nodes run for their effects.
  int cpus = 2;                     ///< CPU devices of this process.
  int threads = 0;
  std::string trace; ///< A Chrome trace file of the step; empty: none.
  graph::pass_selection passes; ///< The graph passes the step runs.
};

/// What `run_step` got: the fetched tensors, by name with the files to
/// write them to (empty: none), and the run's metadata.
struct run_outcome {
  std::vector<std::string> fetch_names;
  std::vector<std::string> fetch_files;
  std::vector<core::tensor> outputs;
  actors::run_metadata metadata;
};

/// Runs one step of the saved graph `o.graph` with `ro`, in this process
/// or on the cluster of `o.cluster`, feeds read from `.npy` files.
core::status run_step(const run_options& o, const actors::run_options& ro,
                      run_outcome* out);

/// Runs one step of a saved graph, in this process or on the cluster of a
/// cluster file: feeds from `.npy` files, prints each fetched tensor and
/// writes the ones given a file as `.npy`. Returns the exit code.
int run_graph(const run_options& options);

/// Adds the flags that describe one step of a saved graph -- where it
/// runs, what it is fed, what it fetches and runs -- to `cmd`
/// (`actorflow run`, `graph show`).
void add_step_options(CLI::App* cmd, run_options* run);

/// Adds `actorflow run` (a saved graph, a GraphDef or a SavedModel) to
/// `app`.
void add_run_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
