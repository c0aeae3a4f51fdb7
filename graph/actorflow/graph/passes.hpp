#pragma once

/// The graph passes that turn a user graph into per-device partitions for
/// one run signature: feed/fetch rewrite and pruning, placement, and
/// partitioning with Send/Recv pairs.

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

/// What one `run` asks for: tensors to feed and fetch (`node:port`) and
/// nodes to run for their effects.
struct run_signature {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

/// Replaces each fed tensor by a `_Feed` node (attr `index` = its position
/// in `feeds`), adds a `_Fetch` node per fetch (`index` likewise), and
/// prunes `in` to the nodes that fetches and targets need: a fed tensor cuts
/// off its producers. `in` must be validated; `types` are its types.
core::status rewrite_for_run(const graph& in, const graph_types& types,
                             const run_signature& sig, graph* out);

/// Sets every node's `device` to a full device name: explicit requests are
/// honoured, nodes joined by reference edges (a variable and its Assign)
/// share a device, the rest go to `default_device`. `devices` are full
/// device names (of every worker of a cluster), in order of preference. A
/// request no device can meet, or a group whose requests conflict, is
/// `invalid_argument`.
core::status place(graph& g, const graph_types& types,
                   const std::vector<std::string>& devices,
                   const ops::kernel_registry& kernels,
                   const std::string& default_device);

/// A stateful node's op and the device it keeps in every run.
struct pinned_device {
  std::string op;
  std::string device;
};

/// Stateful nodes (variables, queues, random ops, ...) by name.
using pinned_devices = std::map<std::string, pinned_device>;

/// Places a copy of the whole of `g` (as `place` does) and adds to `out`
/// the devices it gives `g`'s stateful nodes; a node already in `out`
/// keeps its device. Placed per run, a variable could be made on one
/// device by the run that initialises it and looked for on another by a
/// run that also updates it with an op that device lacks (a global step's
/// AssignAdd, which a GPU has no kernel for): every run's graph therefore
/// keeps these devices (`pin_devices`), as TensorFlow places the whole
/// graph once and prunes it per run.
core::status place_stateful(const graph& g, const graph_types& types,
                            const ops::op_registry& ops,
                            const std::vector<std::string>& devices,
                            const ops::kernel_registry& kernels,
                            const std::string& default_device,
                            pinned_devices* out);

/// Asks for each node of `g` named in `pinned`, with the same op, the
/// device given there.
void pin_devices(graph& g, const pinned_devices& pinned);

/// Asks for devices as TensorFlow's `replica_device_setter` does with one
/// parameter server: each variable whose name does not start with
/// `local_prefix` (empty: every variable is shared) on `ps`, every node
/// that takes one of them by reference (its initializer, its updates, a
/// saver) with that variable (on `ps`, or on the device the variable asked
/// for: a mixture's expert keeps its updates beside its weights); every
/// other node on `worker`; a node that asks for a device keeps it.
/// Between-graph replication: each worker's client places its copy of
/// the graph this way, and the replicas share the variables on `ps` by
/// name. `types` are `g`'s.
core::status place_replica(graph& g, const graph_types& types,
                           const std::string& ps, const std::string& worker,
                           const std::string& local_prefix);

/// How `partition` treats the values that travel between tasks.
struct partition_options {
  /// The placed graph's control-flow info when known (from `validate`).
  const control_flow_info* info = nullptr;
  /// With bfloat16 or float16, a float32 value sent to another task
  /// (process) is cast to it before its Send and back after its Recv.
  core::dtype wire = core::dtype::invalid;
  /// With an op registry, a value sent to another task in the root frame
  /// leaves only when the receiving device reaches the node that precedes
  /// its first consumer there in an as-late-as-possible schedule (its Send
  /// waits for that node, as a control edge sent back): it does not occupy
  /// the receiver's memory early (TensorFlow's recv scheduling). nullptr:
  /// values leave as soon as they are made.
  const ops::op_registry* schedule_recvs = nullptr;
};

/// Splits a placed graph into one graph per device. Each cross-device edge
/// becomes a `_Send` on the source device and one `_Recv` per tensor and
/// destination device (control edges send an empty tensor). Loop frames
/// with edges between devices get a control loop per receiving device.
core::status partition(const graph& placed, const graph_types& types,
                       std::map<std::string, graph>* parts,
                       const partition_options& options = {});

/// One device's partition of a run, with the dtypes of its nodes.
struct typed_partition {
  std::string device;
  graph g;
  graph_types types;
};

/// Inserts a `_HostToDevice` or `_DeviceToHost` copy on each edge of a
/// partition of a device with memory of its own (a GPU) where the
/// producer's output and the consumer's input live in different memories,
/// as the kernels' memory specs say (TensorFlow's `EnsureMemoryTypes`):
/// a Recv or Feed gives host memory, a Send or Fetch takes it, a kernel's
/// shape or predicate input wants it. One copy per tensor and direction;
/// the copies' types are added to the partition's.
core::status insert_memory_copies(std::vector<typed_partition>& parts,
                                  const ops::kernel_registry& kernels);

} // namespace actorflow::graph
