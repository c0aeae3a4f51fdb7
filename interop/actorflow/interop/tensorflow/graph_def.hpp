#pragma once

#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace actorflow::interop::tensorflow {

/// Writes `g` as a serialized TensorFlow `GraphDef` (what `.pb` files and
/// TensorBoard's graph tab hold): names, ops, inputs (`node:port`,
/// `^node`), devices, and attrs mapped onto `AttrValue` (dtypes onto
/// `DataType`, shapes onto `TensorShapeProto`, tensors onto `TensorProto`
/// with their bytes in `tensor_content`).
core::status to_graph_def(const graph::graph& g, std::string* serialized);

/// Writes `g` as a binary GraphDef file at `path`.
core::status save_graph_def(const graph::graph& g, const std::string& path);

/// How a GraphDef is written: protobuf's binary form (`.pb`) or its text
/// form (`.pbtxt`).
enum class graph_def_format {
  binary,
  text,
};

/// An op a GraphDef uses that the op registry lacks, and the nodes that
/// use it (in the graph's order).
struct missing_op {
  std::string op;
  std::vector<std::string> nodes;
};

/// Lists the ops GraphDef file `path` uses that `ops` lacks, by name (none:
/// `out` empty); what `actorflow ops --missing` prints.
core::status find_missing_ops(const std::string& path,
                              const ops::op_registry& ops,
                              std::vector<missing_op>* out);

/// `missing` in one line: each op, how many nodes use it and the first.
std::string describe_missing_ops(const std::vector<missing_op>& missing);

/// Reads a TensorFlow `GraphDef` into `out`: each node's name, op, inputs
/// (`node:port`, `^node`) and device as they are, its attrs converted by
/// the types its op declares in `ops` (TensorFlow's DataType onto dtypes,
/// a reference type onto its value type; TensorProto with
/// `tensor_content` or typed values). Attrs whose names start with `_`
/// (TensorFlow's own annotations) are dropped. Ops `ops` lacks are one
/// `unimplemented` error naming them all; an attr the op does not
/// declare, a value of the wrong type or a type the engine lacks is an
/// error naming the node and op. The graph is not validated
/// (`session::extend` does).
core::status from_graph_def(const std::string& data, graph_def_format format,
                            const ops::op_registry& ops, graph::graph* out);

/// Reads the GraphDef file `path`: text when its name ends in `.pbtxt` or
/// `.pbtext`, binary otherwise.
core::status load_graph_def(const std::string& path,
                            const ops::op_registry& ops, graph::graph* out);

/// Whether `path` names a GraphDef file rather than a graph file of the
/// engine's own (`net::save_graph`): it ends in `.pb`, `.pbtxt` or
/// `.pbtext`.
bool is_graph_def_path(const std::string& path);

} // namespace actorflow::interop::tensorflow
