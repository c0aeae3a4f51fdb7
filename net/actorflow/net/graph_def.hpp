#pragma once

#include <string>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"

namespace actorflow::net {

/// Writes `g` as a serialized TensorFlow `GraphDef` (what `.pb` files and
/// TensorBoard's graph tab hold): names, ops, inputs (`node:port`,
/// `^node`), devices, and attrs mapped onto `AttrValue` (dtypes onto
/// `DataType`, shapes onto `TensorShapeProto`, tensors onto `TensorProto`
/// with their bytes in `tensor_content`).
core::status to_graph_def(const graph::graph& g, std::string* serialized);

/// Writes `g` as a binary GraphDef file at `path`.
core::status save_graph_def(const graph::graph& g, const std::string& path);

} // namespace actorflow::net
