#pragma once

/// A cluster from a Slurm job step, as TensorFlow's Slurm cluster resolver
/// makes one.

#include <string>
#include <vector>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::actors {

/// What a Slurm job step tells each of its tasks.
struct slurm_step {
  int procid = 0; ///< SLURM_PROCID: this task's rank.
  int ntasks = 0; ///< SLURM_NTASKS.
  /// SLURM_STEP_NODELIST, expanded (by `scontrol show hostnames`).
  std::vector<std::string> hostnames;
  /// SLURM_STEP_TASKS_PER_NODE: tasks per node, e.g. `2(x3),1`.
  std::string tasks_per_node;
};

/// The cluster of a Slurm job step and this task's name (`job:index`).
///
/// `jobs` splits the step's tasks into jobs in rank order (`ps:1,worker:2`:
/// rank 0 is ps:0, ranks 1 and 2 worker:0 and worker:1; empty: every task
/// a worker); their counts must add up to SLURM_NTASKS. Ranks fill the
/// nodes in order (Slurm's block distribution), and the k-th task on a
/// node listens on `port_base + k`. `invalid_argument` says what does not
/// fit.
core::status slurm_cluster(const slurm_step& step, const std::string& jobs,
                           int port_base, cluster_spec* spec,
                           std::string* task);

} // namespace actorflow::actors
