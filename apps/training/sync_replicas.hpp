#pragma once

// Synchronous replicas' gradient accumulators and token queues.

#include <optional>
#include <string>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"
#include "actorflow/graph/training_ops.hpp"

namespace actorflow::apps {

/// The nodes of synchronous between-graph replication (TensorFlow's
/// SyncReplicasOptimizer) over `replicas` workers.
struct sync_replicas_ops {
  /// A replica's training step: adds its gradients to the accumulators.
  std::string train;
  /// The chief's, after `train`: waits for every replica, applies the mean
  /// gradient, advances the global step, resets the accumulators and lets
  /// the others go on.
  std::string apply;
  /// Replica k > 0's, after `train`: waits until the chief has applied.
  std::vector<std::string> wait;
};

/// Adds, under `s`, accumulators for `grads` (none: the variable is left
/// alone) of `vars` and the queues that keep the replicas in step on
/// `device` (the parameter server); `opt` applies the mean gradient and
/// `step` (an int64 variable) counts the applied steps. Accumulators are
/// named `sync_replicas/...`: they are not checkpointed.
sync_replicas_ops sync_replicas(
  const graph::scope& s, const std::vector<std::optional<graph::output>>& grads,
  const std::vector<graph::output>& vars, const graph::output& step,
  int replicas, const std::string& device, const graph::optimizer& opt);

/// All-reduce replication (Horovod's, TensorFlow's MultiWorkerMirrored):
/// a replica's `grads` averaged over the replicas on `members`
/// (graph::all_reduce, in buckets) and applied by `opt` to its own `vars`,
/// under `s`. Every replica builds the same graph, so their variables
/// stay equal. Returns the update.
graph::operation all_reduce_update(
  const graph::scope& s, const std::vector<std::optional<graph::output>>& grads,
  const std::vector<graph::output>& vars,
  const std::vector<std::string>& members, const graph::optimizer& opt);

} // namespace actorflow::apps
