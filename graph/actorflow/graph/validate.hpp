#pragma once

#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/control_flow_info.hpp"
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
/// malformed loops (see `build_control_flow_info`). Duplicate names are caught
/// by `graph::add`. Names starting with '_' belong to the runtime and are
/// rejected unless `internal` is set. Fills in `types` and `info` when
/// given.
core::status validate(graph& g, const ops::op_registry& registry,
                      graph_types* types = nullptr, bool internal = false,
                      control_flow_info* info = nullptr);

/// The first part of `validate`: checks each node's op and attrs (filling
/// in defaults) and resolves its input and output dtypes, without looking
/// at edges. For graphs made from validated ones (the partitions of a
/// run), whose edges are right by construction.
core::status resolve_types(graph& g, const ops::op_registry& registry,
                           graph_types* types, bool internal = true);

} // namespace actorflow::graph

namespace actorflow::graph {

/// Checks that output dtype `got` of `producer` fits input `index` of
/// `consumer`, which expects `want`; the one place that words edge errors.
core::status check_edge(const core::node_def& consumer, size_t index,
                        const std::string& producer, const ops::arg_type& want,
                        const ops::arg_type& got);

} // namespace actorflow::graph
