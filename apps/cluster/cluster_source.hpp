#pragma once

// Where a process learns its cluster and task: a file, TF_CONFIG or Slurm.

#include <string>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/core/status.hpp"

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace actorflow::apps {

/// Where a command finds the cluster it runs in and its own task: a
/// cluster file and a task flag, TensorFlow's `TF_CONFIG`, or the Slurm job
/// step it runs in.
struct cluster_source {
  std::string file;       ///< A cluster file (`--config`, `--cluster`).
  std::string task;       ///< With `file`: this task, `job:index`.
  bool tf_config = false; ///< From TF_CONFIG (`--from-tf-config`).
  bool slurm = false;     ///< From the Slurm job step (`--from-slurm`).
  std::string jobs;       ///< With `slurm`: `job:count,...` (`--jobs`).
  int port_base = 8888;   ///< With `slurm`: a node's first port.

  /// Whether any source was given.
  bool given() const noexcept {
    return !file.empty() || tf_config || slurm;
  }

  /// Loads the cluster and, into `task`, this process's task.
  core::status load(actors::cluster_spec* spec, std::string* task) const;
};

/// Adds `--from-tf-config` (and with `slurm` `--from-slurm`, `--jobs` and
/// `--port-base`) to `cmd`, each excluding the file option `file` and the
/// task option `task` (if any) that `cmd` already has.
void add_cluster_source_options(CLI::App* cmd, cluster_source* source,
                                CLI::Option* file, CLI::Option* task,
                                bool slurm);

} // namespace actorflow::apps
