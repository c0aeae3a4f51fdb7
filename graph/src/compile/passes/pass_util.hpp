#pragma once

// Internal: what the graph passes share.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace actorflow::graph::detail {

/// Whether `op` is a node the session adds: `_Feed`, `_Fetch`, `_Send`,
/// `_Recv`.
bool is_runtime_op(const std::string& op);

/// Whether `op` is one of the control-flow primitives (or a runtime node
/// the session adds: `_Feed`, `_Fetch`, `_Send`, `_Recv`), which no pass
/// merges, folds or removes.
bool is_fixed_op(const std::string& op);

/// Whether output `port` of `producer` is a reference (true when its op
/// or types are unknown: assume the worst).
bool is_ref_output(const ops::op_registry& ops, const core::node_def& producer,
                   int port);

/// Whether a pass may merge, fold or remove `node`: a known op, stateless,
/// not fixed, and with no reference input or output (a variable read by
/// reference can change between two reads).
bool is_pure(const graph& g, const ops::op_registry& ops,
             const core::node_def& node);

using core::control_inputs;
using core::data_inputs;

/// The consumers of every node: data edges per output port and control
/// edges, by node index.
struct consumers {
  explicit consumers(const graph& g);

  /// How many data inputs read any output of node `i`.
  std::vector<int> data;
  /// How many control inputs name node `i`.
  std::vector<int> control;
  /// The index of one node reading node `i` (its last reader), or -1.
  std::vector<int> reader;
  /// Whether some data input reads an output of node `i` past its first.
  std::vector<bool> past_first;
};

/// Whether `node` is the only reader of `producer`'s value, on its device,
/// and nothing else depends on it or keeps it: `producer` can then vanish
/// into a node that replaces `node`.
bool only_read_by(const graph& g, const consumers& c,
                  const std::set<std::string>& keep,
                  const core::node_def& producer, const core::node_def& node);

/// What makes the value `ref` names live in an iteration, when that is
/// known: "a Switch's port p of predicate q" (through Identities), or "a
/// loop's Merge of frame f". The value is live only if its key is; with
/// `exactly` (no Identity on the way has control inputs, which could make
/// it dead), exactly when its key is.
std::optional<std::string> liveness_of(const graph& g, core::input_ref ref,
                                       bool exactly = false);

/// Removes the nodes at the marked indices and rebuilds the index.
core::status remove_nodes(graph& g, const std::vector<bool>& marked);

/// The nodes' indices in an order where every node follows its inputs,
/// the edges out of a NextIteration left out (the only edges that close a
/// cycle in a valid graph): `graph_index::topological_order`, with the
/// nodes of any other cycle last.
std::vector<size_t> topological_order(const graph& g);

} // namespace actorflow::graph::detail
