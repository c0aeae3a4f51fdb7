#include "actorflow/interop/tensorflow/graph_def.hpp"

#include <fstream>
#include <iterator>
#include <map>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/text_format.h>

#include "actorflow/core/file.hpp"
#include "imported_graph.hpp"
#include "tensorflow/graph_def_import.hpp"
#include "tensorflow/tf_proto.hpp"

namespace actorflow::interop::tensorflow {

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

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size()
         && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

core::status parse_graph_def(const std::string& data, graph_def_format format,
                             tfproto::GraphDef* def) {
  if (format == graph_def_format::text) {
    if (!google::protobuf::TextFormat::ParseFromString(data, def))
      return core::invalid_argument_error(
        "not a GraphDef in protobuf's text form");
  } else {
    google::protobuf::io::CodedInputStream in{
      reinterpret_cast<const uint8_t*>(data.data()),
      static_cast<int>(std::min<size_t>(data.size(), INT32_MAX))};
    if (data.size() > INT32_MAX || !def->ParseFromCodedStream(&in)
        || !in.ConsumedEntireMessage())
      return core::invalid_argument_error("not a binary GraphDef");
  }
  return core::status::ok();
}

graph_def_format format_of(const std::string& path) {
  return ends_with(path, ".pbtxt") || ends_with(path, ".pbtext")
           ? graph_def_format::text
           : graph_def_format::binary;
}

} // namespace

std::string describe_missing_ops(const std::vector<missing_op>& missing) {
  std::string text;
  for (const auto& m : missing) {
    if (!text.empty())
      text += ", ";
    text += m.op + " (" + std::to_string(m.nodes.size())
            + (m.nodes.size() == 1 ? " node: '" : " nodes, first '")
            + m.nodes.front() + "')";
  }
  return text;
}

core::status from_graph_def(const std::string& data, graph_def_format format,
                            const ops::op_registry& ops, graph::graph* out) {
  tfproto::GraphDef def;
  ACTORFLOW_RETURN_IF_ERROR(parse_graph_def(data, format, &def));
  std::vector<core::node_def> nodes;
  detail::graph_def_importer importer{def, ops};
  ACTORFLOW_RETURN_IF_ERROR(importer.import({}, &nodes));
  graph::graph g;
  ACTORFLOW_RETURN_IF_ERROR(
    interop::detail::add_imported_nodes(std::move(nodes), &g));
  *out = std::move(g);
  return core::status::ok();
}

bool is_graph_def_path(const std::string& path) {
  return ends_with(path, ".pb") || ends_with(path, ".pbtxt")
         || ends_with(path, ".pbtext");
}

core::status load_graph_def(const std::string& path,
                            const ops::op_registry& ops, graph::graph* out) {
  std::string data;
  ACTORFLOW_RETURN_IF_ERROR(core::read_file(path, &data, "GraphDef file"));
  auto st = from_graph_def(data, format_of(path), ops, out);
  return st.is_ok() ? st : st.prefixed("GraphDef file '" + path + "'");
}

core::status find_missing_ops(const std::string& path,
                              const ops::op_registry& ops,
                              std::vector<missing_op>* out) {
  std::string data;
  ACTORFLOW_RETURN_IF_ERROR(core::read_file(path, &data, "GraphDef file"));
  tfproto::GraphDef def;
  auto st = parse_graph_def(data, format_of(path), &def);
  if (!st.is_ok())
    return st.prefixed("GraphDef file '" + path + "'");
  *out = detail::graph_def_importer{def, ops}.missing_ops({});
  return core::status::ok();
}

} // namespace actorflow::interop::tensorflow
