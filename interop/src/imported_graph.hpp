#pragma once

// Internal: where every importer ends -- the nodes it read, added to a
// graph of the engine's IR and laid out as the kernels take them.

#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"

namespace actorflow::interop::detail {

/// Adds `nodes` to `g` in their order, an error naming the node and op
/// that fails, then rewrites what is laid out NCHW into the NHWC the
/// kernels take (`nchw_to_nhwc`: graphs written on GPUs, and ONNX's
/// images).
core::status add_imported_nodes(std::vector<core::node_def> nodes,
                                graph::graph* g);

} // namespace actorflow::interop::detail
