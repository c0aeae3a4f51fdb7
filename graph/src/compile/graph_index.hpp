#pragma once

/// A graph's edges seen from both ends, parsed once from the input
/// strings, with each node's control-flow role: what every step of the
/// compile path walks.

#include <cstdint>
#include <string_view>
#include <vector>

#include "actorflow/graph/graph.hpp"

namespace actorflow::graph {

/// What a node does to control flow, by its op.
enum class flow_role : uint8_t {
  none,            ///< Not a control-flow primitive.
  enter,           ///< Enter, RefEnter: into a child frame.
  exit,            ///< Exit, RefExit: back to the parent frame.
  next_iteration,  ///< NextIteration, RefNextIteration.
  merge,           ///< Merge, RefMerge.
  switch_node,     ///< Switch, RefSwitch.
  loop_cond,       ///< LoopCond: a loop's predicate.
  control_trigger, ///< ControlTrigger.
};

/// The control-flow role of `op`: the one table that names the primitives,
/// every reference variant included.
flow_role flow_role_of(std::string_view op);

/// Whether input 0 of `op` is the handle of a per-step resource that lives
/// where the node making it ran (a TensorArray's or a stack's), so that the
/// node must run there too.
bool takes_step_resource(std::string_view op);

/// One edge between two nodes of a graph, by node index.
struct graph_edge {
  int src = -1; ///< The producer.
  int dst = -1; ///< The consumer.
  /// The producer's output port; -1 for a control edge.
  int port = 0;
  /// The consumer's data input it fills (its position among the data
  /// inputs); -1 for a control edge.
  int slot = 0;

  bool control() const noexcept {
    return port < 0;
  }
};

/// The edges of a graph seen from both ends, parsed once: each node's
/// inputs and consumers, its control-flow role and an order where every
/// node follows its inputs.
///
/// Built from a graph and valid while its nodes and their inputs stay as
/// they were. Inputs that do not parse or name no node of the graph are
/// left out of the edges; `bad_input` tells where the first one is.
class graph_index {
public:
  graph_index() = default;

  explicit graph_index(const graph& g);

  size_t size() const noexcept {
    return inputs_.size();
  }

  /// The inputs of node `i`, in the order it lists them.
  const std::vector<graph_edge>& inputs(size_t i) const {
    return inputs_[i];
  }

  /// The edges out of node `i`, by consumer index and then input order.
  const std::vector<graph_edge>& consumers(size_t i) const {
    return consumers_[i];
  }

  /// The control-flow role of node `i`.
  flow_role role(size_t i) const {
    return roles_[i];
  }

  /// The position in node `i`'s input list of its first input that is
  /// malformed or names no node, or -1.
  int bad_input(size_t i) const {
    return bad_input_[i];
  }

  /// Every node after its producers, leaving out the edges out of a
  /// NextIteration (which close a loop); ready nodes in the graph's order.
  /// Nodes on a cycle that no NextIteration breaks are missing.
  const std::vector<size_t>& topological_order() const noexcept {
    return order_;
  }

private:
  std::vector<std::vector<graph_edge>> inputs_;
  std::vector<std::vector<graph_edge>> consumers_;
  std::vector<flow_role> roles_;
  std::vector<int> bad_input_;
  std::vector<size_t> order_;
};

} // namespace actorflow::graph
