#pragma once

/// A graph from any file the engine reads: another framework's model or a
/// graph file of the engine's own.

#include <string>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace actorflow::interop {

/// Reads the graph in `path` into `out`: a TensorFlow GraphDef when
/// `tensorflow::is_graph_def_path(path)` (`.pb`, `.pbtxt`, `.pbtext`), a
/// graph file of the engine's own (`net::load_graph`) otherwise.
core::status load_any_graph(const std::string& path,
                            const ops::op_registry& ops, graph::graph* out);

} // namespace actorflow::interop
