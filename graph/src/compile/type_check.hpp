#pragma once

/// The parts of `validate` that the compile path and the graph builders
/// call on their own, and `validate` handing out what it built.

#include <string>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/validate.hpp"
#include "compile/control_flow_info.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph {

/// `validate`, also handing out `g`'s loop frames when given. They stay
/// right, as `g.edges()` does, while no node or input of `g` changes:
/// placement, which sets devices only, keeps them.
core::status validate(graph& g, const ops::op_registry& registry,
                      graph_types* types, bool internal,
                      control_flow_info* info);

/// The first part of `validate`: checks each node's op and attrs (filling
/// in defaults) and resolves its input and output dtypes, without looking
/// at edges. For graphs made from validated ones (the partitions of a
/// run), whose edges are right by construction.
core::status resolve_types(graph& g, const ops::op_registry& registry,
                           graph_types* types, bool internal = true);

/// Checks that output dtype `got` of `producer` fits input `index` of
/// `consumer`, which expects `want`; the one place that words edge errors.
core::status check_edge(const core::node_def& consumer, size_t index,
                        const std::string& producer, const ops::arg_type& want,
                        const ops::arg_type& got);

} // namespace actorflow::graph
