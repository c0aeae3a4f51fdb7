#pragma once

/// Checking a graph against the ops it uses, and the dtypes that checking
/// resolves: what placement and compiling a run take.

#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/ops/op_def.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace actorflow::graph {

/// The resolved input and output dtypes of every node, by node index.
struct graph_types {
  std::vector<std::vector<ops::arg_type>> inputs;
  std::vector<std::vector<ops::arg_type>> outputs;
};

/// Checks `g` against `registry` and fills in default attrs.
///
/// Rejects, with a status naming the node: an unknown op, a malformed or
/// dangling input, a control input before a data input, a wrong number of
/// data inputs, a missing attr or one of the wrong type, a dtype mismatch on
/// an edge (including a value where a reference is needed), a cycle
/// that does not pass through a NextIteration, a Merge with one input, and
/// malformed loops: an Exit or NextIteration outside any frame, a node
/// reached from two frames, Enters of one frame that disagree on
/// `parallel_iterations`. Duplicate names are caught by `graph::add`. Names
/// starting with '_' belong to the runtime and are rejected unless
/// `internal` is set. Fills in `types` when given.
core::status validate(graph& g, const ops::op_registry& registry,
                      graph_types* types = nullptr, bool internal = false);

} // namespace actorflow::graph
