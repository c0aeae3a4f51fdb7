#include "actorflow/net/graph_def.hpp"

#include <fstream>
#include <iterator>
#include <map>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/text_format.h>

#include "actorflow/graph/graph_index.hpp"
#include "actorflow/graph/layout.hpp"
#include "actorflow/net/graph_codec.hpp"
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

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size()
         && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// An attr TensorFlow's op has and the engine's lacks, with TensorFlow's
/// default: a node giving it that value imports (the engine does what
/// TensorFlow does then), another value is refused. TensorFlow accepts
/// attrs it does not know at their defaults for the same reason: graphs
/// written by a newer version.
struct tf_default_attr {
  const char* op;
  const char* attr;
  const char* type;
  core::attr_value value;
};

const std::vector<tf_default_attr>& tf_default_attrs() {
  static const std::vector<tf_default_attr> table{
    {"Equal", "incompatible_shape_error", "bool", true},
    {"NotEqual", "incompatible_shape_error", "bool", true},
    {"TopKV2", "Tk", "type", core::dtype::int32},
    {"TopKV2", "index_type", "type", core::dtype::int32},
  };
  return table;
}

const tf_default_attr* find_tf_default(const std::string& op,
                                       const std::string& attr) {
  for (const auto& d : tf_default_attrs())
    if (op == d.op && attr == d.attr)
      return &d;
  return nullptr;
}

/// Whether `op` passes its input on unchanged (control flow, Identity): a
/// DT_RESOURCE there is a TensorArray's handle, a string here.
bool forwards_handles(const std::string& op) {
  return graph::flow_role_of(op) != graph::flow_role::none || op == "Identity";
}

/// The engine's form of one NodeDef.
core::status import_node(const tfproto::NodeDef& n, const ops::op_registry& ops,
                         core::node_def* out) {
  auto fail = [&](auto&&... xs) {
    return core::invalid_argument_error(xs...).with_context(n.name(), n.op());
  };
  const auto* op = ops.find(n.op());
  if (op == nullptr) // from_graph_def checked first
    return core::internal_error("op '", n.op(), "' is not registered")
      .with_context(n.name(), n.op());
  out->name = n.name();
  out->op = n.op();
  out->inputs.assign(n.input().begin(), n.input().end());
  out->device = n.device();
  // In name order: a protobuf map has none, and errors should not depend
  // on it.
  std::map<std::string, const tfproto::AttrValue*> attrs;
  for (const auto& [name, value] : n.attr())
    attrs.emplace(name, &value);
  for (const auto& [name, value] : attrs) {
    if (!name.empty() && name[0] == '_')
      continue;
    const auto* spec = op->find_attr(name);
    if (spec == nullptr) {
      const auto* d = find_tf_default(n.op(), name);
      if (d == nullptr)
        return fail("attr '", name, "' is not one actorflow's ", n.op(),
                    " has");
      core::attr_value v;
      if (!detail::from_proto(*value, d->type, &v).is_ok()
          || !core::attr_equal(v, d->value))
        return fail("attr '", name, "' of ", n.op(), " is ", core::to_string(v),
                    "; actorflow has only TensorFlow's "
                    "default, ",
                    core::to_string(d->value));
      continue;
    }
    core::attr_value v;
    tfproto::AttrValue handle_type;
    if (value->type() == tfproto::DT_RESOURCE && forwards_handles(n.op())) {
      handle_type.set_type(tfproto::DT_STRING);
    }
    auto st = detail::from_proto(handle_type.has_type() ? handle_type : *value,
                                 spec->type, &v);
    if (!st.is_ok())
      return core::status{st.code(), "attr '" + name + "': " + st.message()}
        .with_context(n.name(), n.op());
    out->attrs.emplace(name, std::move(v));
  }
  return core::status::ok();
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

/// The ops of `def` that `ops` lacks, in name order.
std::vector<missing_op> missing_ops_of(const tfproto::GraphDef& def,
                                       const ops::op_registry& ops) {
  std::map<std::string, std::vector<std::string>> missing;
  for (const auto& n : def.node())
    if (ops.find(n.op()) == nullptr)
      missing[n.op()].push_back(n.name());
  std::vector<missing_op> result;
  for (auto& [op, nodes] : missing)
    result.push_back(missing_op{op, std::move(nodes)});
  return result;
}

/// Reads the file at `path` into `data`.
core::status read_file(const std::string& path, std::string* data) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return core::not_found_error("cannot open GraphDef file '", path, "'");
  data->assign(std::istreambuf_iterator<char>{in}, {});
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
  if (auto missing = missing_ops_of(def, ops); !missing.empty()) {
    auto st = core::unimplemented_error(
      "the graph uses ", missing.size(), missing.size() == 1 ? " op" : " ops",
      " actorflow lacks: ", describe_missing_ops(missing),
      " (`actorflow ops` lists the ops there are, `actorflow ops --missing "
      "FILE` what a GraphDef file needs)");
    const auto& first = missing.front();
    return st.with_context(first.nodes.front(), first.op);
  }
  graph::graph g;
  for (const auto& n : def.node()) {
    core::node_def node;
    ACTORFLOW_RETURN_IF_ERROR(import_node(n, ops, &node));
    auto st = g.add(std::move(node));
    if (!st.is_ok())
      return st.with_context(n.name(), n.op());
  }
  // Graphs written on GPUs lay images out NCHW; the kernels take NHWC.
  ACTORFLOW_RETURN_IF_ERROR(graph::nchw_to_nhwc(&g));
  *out = std::move(g);
  return core::status::ok();
}

bool is_graph_def_path(const std::string& path) {
  return ends_with(path, ".pb") || ends_with(path, ".pbtxt")
         || ends_with(path, ".pbtext");
}

core::status load_any_graph(const std::string& path,
                            const ops::op_registry& ops, graph::graph* out) {
  return is_graph_def_path(path) ? load_graph_def(path, ops, out)
                                 : load_graph(path, ops, out);
}

core::status load_graph_def(const std::string& path,
                            const ops::op_registry& ops, graph::graph* out) {
  std::string data;
  ACTORFLOW_RETURN_IF_ERROR(read_file(path, &data));
  auto st = from_graph_def(data, format_of(path), ops, out);
  return st.is_ok() ? st : st.prefixed("GraphDef file '" + path + "'");
}

core::status find_missing_ops(const std::string& path,
                              const ops::op_registry& ops,
                              std::vector<missing_op>* out) {
  std::string data;
  ACTORFLOW_RETURN_IF_ERROR(read_file(path, &data));
  tfproto::GraphDef def;
  auto st = parse_graph_def(data, format_of(path), &def);
  if (!st.is_ok())
    return st.prefixed("GraphDef file '" + path + "'");
  *out = missing_ops_of(def, ops);
  return core::status::ok();
}

} // namespace actorflow::net
