#pragma once

/// Where a graph's nodes run, decided before a session compiles its runs:
/// the devices its stateful nodes keep, and the parameter-server layout of
/// between-graph replication.

#include <map>
#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/validate.hpp"

namespace actorflow::ops {
class kernel_registry;
class op_registry;
} // namespace actorflow::ops

namespace actorflow::graph {

/// A stateful node's op and the device it keeps in every run.
struct pinned_device {
  std::string op;
  std::string device;
};

/// Stateful nodes (variables, queues, random ops, ...) by name.
using pinned_devices = std::map<std::string, pinned_device>;

/// Places a copy of the whole of `g` (as each run's compile does) and adds
/// to `out` the devices it gives `g`'s stateful nodes; a node already in
/// `out` keeps its device. Placed per run, a variable could be made on one
/// device by the run that initialises it and looked for on another by a
/// run that also updates it with an op that device lacks (a global step's
/// AssignAdd, which a GPU has no kernel for): every run's graph therefore
/// keeps these devices (`compile_options::pinned`), as TensorFlow places
/// the whole graph once and prunes it per run. `devices` are full device
/// names (of every worker of a cluster), in order of preference; a node
/// that asks for no device type goes to `default_device`.
core::status place_stateful(const graph& g, const graph_types& types,
                            const ops::op_registry& ops,
                            const std::vector<std::string>& devices,
                            const ops::kernel_registry& kernels,
                            const std::string& default_device,
                            pinned_devices* out);

/// Asks for devices as TensorFlow's `replica_device_setter` does with one
/// parameter server: each variable whose name does not start with
/// `local_prefix` (empty: every variable is shared) on `ps`, every node
/// that takes one of them by reference (its initializer, its updates, a
/// saver) with that variable (on `ps`, or on the device the variable asked
/// for: a mixture's expert keeps its updates beside its weights); every
/// other node on `worker`; a node that asks for a device keeps it.
/// Between-graph replication: each worker's client places its copy of
/// the graph this way, and the replicas share the variables on `ps` by
/// name. `types` are `g`'s (`validate`).
core::status place_replica(graph& g, const graph_types& types,
                           const std::string& ps, const std::string& worker,
                           const std::string& local_prefix);

} // namespace actorflow::graph
