#include "actorflow/net/graph_def.hpp"

#include <fstream>

#include "tf_proto.hpp"

namespace actorflow::net {

core::status to_graph_def(const graph::graph& g, std::string* serialized) {
  tfproto::GraphDef def;
  // The producer version of TensorFlow 1.15's graphs, which TensorBoard
  // and TensorFlow's importers read as graph mode.
  def.mutable_versions()->set_producer(134);
  for (const auto& node : g.nodes()) {
    auto* n = def.add_node();
    n->set_name(node.name);
    n->set_op(node.op);
    for (const auto& in : node.inputs)
      n->add_input(in);
    n->set_device(node.device);
    for (const auto& [name, value] : node.attrs)
      detail::to_proto(value, &(*n->mutable_attr())[name]);
  }
  if (!def.SerializeToString(serialized))
    return core::internal_error("serializing the GraphDef failed");
  return core::status::ok();
}

core::status save_graph_def(const graph::graph& g, const std::string& path) {
  std::string bytes;
  ACTORFLOW_RETURN_IF_ERROR(to_graph_def(g, &bytes));
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out << bytes;
  out.close();
  if (!out)
    return core::not_found_error("cannot write GraphDef file '", path, "'");
  return core::status::ok();
}

} // namespace actorflow::net
