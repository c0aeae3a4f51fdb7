#pragma once

// `actorflow worker`: one task of a cluster, serving its devices.

#include <cstdint>
#include <string>

#include "cluster/cluster_source.hpp"
#include "common/command.hpp"

namespace actorflow::apps {

/// Options of `actorflow worker`.
struct worker_options {
  /// The cluster file and this task, or TF_CONFIG, or the Slurm step.
  cluster_source cluster;
  int port = -1; ///< Overrides the file's port when >= 0.
  int threads = 0;
  /// Tensors of at least this many bytes take the bulk path (-1: the
  /// engine's default).
  int64_t bulk_min_bytes = -1;
  /// Serves Prometheus metrics on this port of the task's host (0: any
  /// free port; -1: none).
  int metrics_port = -1;
};

/// Runs the worker of one task of a cluster file: publishes it, prints
/// the address it listens on, and serves until SIGTERM or SIGINT, then
/// stops its steps and exits 0. Returns the exit code.
int run_worker(const worker_options& options);

/// Adds `actorflow worker` to `app`.
void add_worker_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
