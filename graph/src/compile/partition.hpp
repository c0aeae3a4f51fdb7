#pragma once

/// The partitioning step of a compile: a placed graph cut into one graph
/// per device, joined by Send/Recv pairs.

#include <map>
#include <string>

#include "actorflow/core/dtype.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/validate.hpp"
#include "compile/control_flow_info.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::ops {
class op_registry;
} // namespace actorflow::ops

namespace actorflow::graph {

/// How `partition` treats the values that travel between tasks, and what
/// it knows of the placed graph already (its edges it takes from the graph,
/// `placed.edges()`).
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

} // namespace actorflow::graph
