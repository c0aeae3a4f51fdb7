#pragma once

/// Recv scheduling: which node of the receiving task lets a value leave
/// for it, so that a remote value arrives as late as possible (TensorFlow's
/// `GraphOptions.enable_recv_scheduling`).

#include <map>
#include <string>
#include <tuple>

#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/validate.hpp"
#include "compile/control_flow_info.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::ops {
class op_registry;
} // namespace actorflow::ops

namespace actorflow::graph::detail {

/// A transfer as the partitioner keys it: producer, output port and the
/// device that receives it.
using transfer_key = std::tuple<std::string, int, std::string>;

/// Whether two full device names are of the same task (process).
bool same_task(const std::string& a, const std::string& b);

/// How many levels of unit-cost work before its first consumer a value is
/// asked for: the transfer overlaps that much of the receiver's work.
inline constexpr int recv_lead_levels = 2;

/// For each value of placed graph `g` sent in the root frame from one task
/// to another, the node of the receiving device after which it is sent
/// (its trigger), if it has one. `index` is `g`'s.
///
/// The nodes are ordered by their as-late-as-possible start (unit costs,
/// the critical path to the graph's end) in an order that follows the
/// edges. A value's trigger is the latest node of the receiving device
/// that comes before the value's first consumer there and starts at least
/// `recv_lead_levels` earlier. As every added dependency points forward in
/// that one order, no cycle is made. A node that may be dead (after a
/// Switch), that is in a loop or moves control flow, or that follows a
/// stateful op with inputs (a queue's dequeue, a collective, an
/// assignment: they may wait for what the graph does not show) or that has
/// no inputs (it runs as the step starts) is never a trigger. Values with no
/// trigger are sent as soon as they are made.
std::map<transfer_key, std::string> recv_triggers(const graph& g,
                                                  const graph_index& index,
                                                  const graph_types& types,
                                                  const control_flow_info& info,
                                                  const ops::op_registry& ops);

} // namespace actorflow::graph::detail
