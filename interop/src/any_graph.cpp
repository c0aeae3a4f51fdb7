// A graph from any file the engine reads, picked by the file's name.

#include "actorflow/interop/any_graph.hpp"

#include "actorflow/interop/tensorflow/graph_def.hpp"
#include "actorflow/net/graph_codec.hpp"

namespace actorflow::interop {

core::status load_any_graph(const std::string& path,
                            const ops::op_registry& ops, graph::graph* out) {
  return tensorflow::is_graph_def_path(path)
           ? tensorflow::load_graph_def(path, ops, out)
           : net::load_graph(path, ops, out);
}

} // namespace actorflow::interop
