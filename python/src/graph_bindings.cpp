// Graph building from Python: outputs, scopes, ops by name, imported graphs.
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "actorflow/graph/scope.hpp"
#include "actorflow/interop/any_graph.hpp"
#include "actorflow/interop/tensorflow/graph_def.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "attr_conversion.hpp"
#include "bindings.hpp"
#include "errors.hpp"
#include "tensor_conversion.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace actorflow::python {

namespace {

/// Adds a node of `op` and returns (its name, its outputs); raises the
/// build error, which the graph then forgets.
nb::tuple add_node(const graph::scope& s, const std::string& op,
                   const std::string& name,
                   const std::vector<graph::output>& inputs, nb::dict attrs) {
  const auto* def = s.ops().find(op);
  if (def == nullptr)
    throw status_error{core::not_found_error(
      "unknown op '", op, "'; `actorflow ops` lists the ones there are")};
  auto converted = to_attrs(*def, attrs);
  auto node = s.add_operation(op, name, inputs, std::move(converted));
  throw_if_error(s.take_error());
  nb::list outs;
  for (int i = 0; i < s.num_outputs(node.name); ++i)
    outs.append(s.output_of(node.name, i));
  return nb::make_tuple(node.name, outs);
}

nb::dict arg_dict(const ops::arg_def& a) {
  nb::dict d;
  d["name"] = a.name;
  d["type"] = a.type == core::dtype::invalid
                ? nb::none()
                : nb::str(dtype_name(a.type).c_str());
  d["type_attr"] = a.type_attr;
  d["number_attr"] = a.number_attr;
  d["is_ref"] = a.is_ref;
  return d;
}

/// Every registered op as a dict: name, inputs, outputs, attrs (name, type,
/// default when it has one, allowed dtypes), stateful.
nb::list op_defs() {
  ops::op_registry registry;
  throw_if_error(ops::register_ops(registry));
  nb::list out;
  for (const auto& name : registry.names()) {
    const auto& op = *registry.find(name);
    nb::dict d;
    d["name"] = op.name;
    nb::list ins, outs, attrs;
    for (const auto& a : op.inputs)
      ins.append(arg_dict(a));
    for (const auto& a : op.outputs)
      outs.append(arg_dict(a));
    for (const auto& a : op.attrs) {
      nb::dict ad;
      ad["name"] = a.name;
      ad["type"] = a.type;
      if (a.default_value)
        ad["default"] = from_attr(*a.default_value);
      nb::list allowed;
      for (auto t : a.allowed)
        allowed.append(dtype_name(t));
      ad["allowed"] = allowed;
      attrs.append(ad);
    }
    d["inputs"] = ins;
    d["outputs"] = outs;
    d["attrs"] = attrs;
    d["stateful"] = op.is_stateful;
    out.append(d);
  }
  return out;
}

graph::graph load_graph_def(nb::bytes data, bool text) {
  ops::op_registry registry;
  throw_if_error(ops::register_ops(registry));
  graph::graph g;
  throw_if_error(interop::tensorflow::from_graph_def(
    std::string{data.c_str(), data.size()},
    text ? interop::tensorflow::graph_def_format::text
         : interop::tensorflow::graph_def_format::binary,
    registry, &g));
  return g;
}

graph::graph load_graph_file(const std::string& path) {
  ops::op_registry registry;
  throw_if_error(ops::register_ops(registry));
  graph::graph g;
  throw_if_error(interop::load_any_graph(path, registry, &g));
  return g;
}

nb::bytes graph_def_bytes(const graph::graph& g) {
  std::string out;
  throw_if_error(interop::tensorflow::to_graph_def(g, &out));
  return nb::bytes(out.data(), out.size());
}

std::vector<std::string> node_names(const graph::graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes())
    out.push_back(n.name);
  return out;
}

/// The node `name` of the graph `s` builds; not_found if none.
const core::node_def& built_node(const graph::scope& s,
                                 const std::string& name) {
  const auto* n = s.graph_def().find(name);
  if (n == nullptr)
    throw status_error{
      core::not_found_error("no node named '", name, "' in the graph")};
  return *n;
}

} // namespace

void bind_graph(nb::module_& m) {
  nb::class_<graph::output>(m, "Output",
                            "One output of a node being built: its name as "
                            "fetches give it, dtype and (partial) shape.")
    .def_prop_ro("name", &graph::output::name)
    .def_prop_ro("node", &graph::output::node_name)
    .def_prop_ro("port", &graph::output::port)
    .def_prop_ro("dtype",
                 [](const graph::output& x) { return dtype_name(x.dtype()); })
    .def_prop_ro("shape",
                 [](const graph::output& x) { return from_shape(x.shape()); })
    .def_prop_ro("is_ref", &graph::output::is_ref)
    .def(
      "with_shape",
      [](const graph::output& x,
         std::optional<std::vector<std::optional<int64_t>>> dims) {
        auto shape = core::shape::unknown();
        if (dims) {
          std::vector<int64_t> known;
          for (auto d : *dims)
            known.push_back(d ? *d : -1);
          shape = core::shape{std::move(known)};
        }
        return graph::output{x.state(), x.node_name(), x.port(),
                             x.dtype(), shape,         x.is_ref()};
      },
      "shape"_a,
      "This output with the static shape `shape` (what Tensor.set_shape "
      "refined), which the ops built on it see.")
    .def("__repr__", [](const graph::output& x) {
      return "<Output " + x.name() + " " + dtype_name(x.dtype()) + " "
             + x.shape().to_string() + ">";
    });

  nb::class_<graph::graph>(m, "GraphDef",
                           "A whole graph: imported from TensorFlow's "
                           "GraphDef or built (`Scope.graph`).")
    .def_prop_ro("node_names", &node_names)
    .def("__len__", [](const graph::graph& g) { return g.nodes().size(); })
    .def(
      "attr",
      [](const graph::graph& g, const std::string& node,
         const std::string& name) -> nb::object {
        const auto* n = g.find(node);
        if (n == nullptr)
          return nb::none();
        auto it = n->attrs.find(name);
        return it == n->attrs.end() ? nb::none() : from_attr(it->second);
      },
      "node"_a, "name"_a, "Attr `name` of node `node`, or None.")
    .def("serialize", &graph_def_bytes,
         "The graph as TensorFlow's GraphDef, serialized.");
  m.def("load_graph_def", &load_graph_def, "data"_a, "text"_a = false,
        "Reads a serialized TensorFlow GraphDef (binary or text format).");
  m.def("load_graph_file", &load_graph_file, "path"_a,
        "Reads a graph file: TensorFlow's GraphDef (.pb, .pbtxt) or the "
        "engine's own.");

  nb::class_<graph::scope>(m, "Scope",
                           "Where nodes are built: a graph, a name prefix, "
                           "a device and control dependencies.")
    .def(nb::init<>(), "Starts a new graph.")
    .def("sub", &graph::scope::sub, "prefix"_a)
    .def("with_device", &graph::scope::with_device, "device"_a)
    .def(
      "with_control_dependencies",
      [](const graph::scope& s, const std::vector<std::string>& nodes) {
        std::vector<graph::operation> deps;
        for (const auto& n : nodes)
          deps.push_back(graph::operation{n});
        return s.with_control_dependencies(deps);
      },
      "nodes"_a)
    .def("without_control_dependencies",
         &graph::scope::without_control_dependencies)
    .def(
      "outside_control_flow",
      [](const graph::scope& s) { return s.with_flow_context(nullptr); },
      "This scope in the root frame, outside the loop or branch being "
      "built (where variables and their initial values go).")
    .def_prop_ro("device", &graph::scope::device)
    .def("add", &add_node, "op"_a, "name"_a, "inputs"_a, "attrs"_a,
         "Adds a node of `op`; returns (its name, its outputs).")
    .def(
      "output_of",
      [](const graph::scope& s, const std::string& node, int port) {
        auto out = s.output_of(node, port);
        throw_if_error(s.take_error());
        return out;
      },
      "node"_a, "port"_a = 0)
    .def("num_outputs", &graph::scope::num_outputs, "node"_a)
    .def("has_node",
         [](const graph::scope& s, const std::string& node) {
           return s.graph_def().find(node) != nullptr;
         })
    .def("unique_name", &graph::scope::unique_name, "hint"_a)
    .def("num_nodes",
         [](const graph::scope& s) { return s.graph_def().size(); })
    .def(
      "nodes_from",
      [](const graph::scope& s, size_t start) {
        const auto& nodes = s.graph_def().nodes();
        graph::graph g;
        for (size_t i = start; i < nodes.size(); ++i)
          throw_if_error(g.add(nodes[i]));
        return g;
      },
      "start"_a, "The nodes built since the first `start`, as a graph.")
    .def(
      "node_ops",
      [](const graph::scope& s, size_t start) {
        std::vector<std::pair<std::string, std::string>> out;
        const auto& nodes = s.graph_def().nodes();
        for (size_t i = start; i < nodes.size(); ++i)
          out.emplace_back(nodes[i].name, nodes[i].op);
        return out;
      },
      "start"_a, "(name, op) of each node built since the first `start`.")
    .def(
      "op_of",
      [](const graph::scope& s, const std::string& node) {
        return built_node(s, node).op;
      },
      "node"_a, "The op of the node `node`.")
    .def(
      "device_of",
      [](const graph::scope& s, const std::string& node) {
        return built_node(s, node).device;
      },
      "node"_a, "The device the node `node` requests.")
    .def(
      "inputs_of",
      [](const graph::scope& s, const std::string& node) {
        return built_node(s, node).inputs;
      },
      "node"_a, "The inputs of the node `node` (`^name`: control inputs).")
    .def_prop_ro("graph", &graph::scope::graph_def,
                 nb::rv_policy::reference_internal, "The graph built so far.")
    .def("add_initializer",
         [](const graph::scope& s, const std::string& node) {
           s.add_initializer(graph::operation{node});
         })
    .def(
      "initializer",
      [](const graph::scope& s) {
        auto op = s.initializer();
        throw_if_error(s.take_error());
        return op.name;
      },
      "Adds a NoOp that runs every initializer so far; returns its name.");

  m.def("op_defs", &op_defs,
        "Every registered op: inputs, outputs, attrs with defaults.");
}

} // namespace actorflow::python
