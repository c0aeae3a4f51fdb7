// Checking a graph: ops, attrs, dtypes on every edge, cycles, loop frames.

#include "compile/type_check.hpp"

#include "actorflow/graph/validate.hpp"
#include "compile/control_flow_info.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph {

namespace {

core::status node_error(const core::node_def& node, core::status st) {
  return st.with_context(node.name, node.op);
}

} // namespace

core::status check_edge(const core::node_def& consumer, size_t index,
                        const std::string& producer, const ops::arg_type& want,
                        const ops::arg_type& got) {
  if (want.type != got.type)
    return node_error(consumer, core::invalid_argument_error(
                                  "dtype mismatch on edge '", producer,
                                  "' -> '", consumer.name, "': input ", index,
                                  " expects ", core::to_string(want.type),
                                  ", got ", core::to_string(got.type)));
  if (want.is_ref && !got.is_ref)
    return node_error(consumer, core::invalid_argument_error(
                                  "input ", index, " of node '", consumer.name,
                                  "' needs a reference (a variable), got the "
                                  "value '",
                                  producer, "'"));
  return core::status::ok();
}

core::status resolve_types(graph& g, const ops::op_registry& registry,
                           graph_types* types_out, bool internal) {
  graph_types types;
  auto n = g.size();
  types.inputs.resize(n);
  types.outputs.resize(n);
  const auto& nodes = g.nodes();
  for (size_t i = 0; i < n; ++i) {
    const auto& node = nodes[i];
    if (!internal && node.name.front() == '_')
      return node_error(node, core::invalid_argument_error(
                                "node name '", node.name,
                                "' is reserved: names starting with '_' "
                                "belong to the runtime"));
    const auto* op = registry.find(node.op);
    if (op == nullptr)
      return node_error(node,
                        core::not_found_error("unknown op '", node.op,
                                              "' in node '", node.name, "'"));
    auto st = op->check_attrs(g.mutable_attrs(i));
    if (!st.is_ok())
      return node_error(node, st);
    st = op->resolve_types(node.attrs, &types.inputs[i], &types.outputs[i]);
    if (!st.is_ok())
      return node_error(node, st);
  }
  *types_out = std::move(types);
  return core::status::ok();
}

core::status validate(graph& g, const ops::op_registry& registry,
                      graph_types* types, bool internal) {
  return validate(g, registry, types, internal, nullptr);
}

core::status validate(graph& g, const ops::op_registry& registry,
                      graph_types* types_out, bool internal,
                      control_flow_info* info_out) {
  // Pass 1: ops, attrs and dtypes of every node.
  graph_types types;
  ACTORFLOW_RETURN_IF_ERROR(resolve_types(g, registry, &types, internal));
  auto n = g.size();
  const auto& nodes = g.nodes();
  auto edges = g.edges();
  const auto& index = *edges;
  // Pass 2: inputs and edge dtypes.
  for (size_t i = 0; i < n; ++i) {
    const auto& node = nodes[i];
    if (auto bad = index.bad_input(i); bad >= 0) {
      const auto& text = node.inputs[static_cast<size_t>(bad)];
      core::input_ref in;
      if (!core::input_ref::parse(text, &in))
        return node_error(
          node, core::invalid_argument_error("malformed input '", text,
                                             "' of node '", node.name, "'"));
      return node_error(node, core::invalid_argument_error(
                                "node '", node.name, "' has a dangling input '",
                                text, "': no node named '", in.node, "'"));
    }
    size_t data_inputs = 0;
    bool seen_control = false;
    size_t position = 0;
    for (const auto& e : index.inputs(i)) {
      const auto& text = node.inputs[position++];
      if (e.control()) {
        seen_control = true;
        continue;
      }
      if (seen_control)
        return node_error(node, core::invalid_argument_error(
                                  "node '", node.name, "' lists data input '",
                                  text, "' after a control input"));
      const auto& src = nodes[static_cast<size_t>(e.src)];
      const auto& src_out = types.outputs[static_cast<size_t>(e.src)];
      if (e.port >= static_cast<int>(src_out.size()))
        return node_error(node, core::invalid_argument_error(
                                  "node '", node.name, "' reads output ",
                                  e.port, " of '", src.name, "', which has ",
                                  src_out.size(), " outputs"));
      if (data_inputs >= types.inputs[i].size()) {
        ++data_inputs;
        continue; // counted below
      }
      auto st
        = check_edge(node, data_inputs, text, types.inputs[i][data_inputs],
                     src_out[static_cast<size_t>(e.port)]);
      if (!st.is_ok())
        return st;
      ++data_inputs;
    }
    if (data_inputs != types.inputs[i].size())
      return node_error(node, core::invalid_argument_error(
                                "node '", node.name, "' (op ", node.op,
                                ") has ", data_inputs, " data inputs, needs ",
                                types.inputs[i].size()));
  }
  // Pass 3: every cycle must pass through a NextIteration: the order
  // leaves out the nodes of any other cycle.
  if (index.topological_order().size() != n) {
    std::vector<bool> ordered(n, false);
    for (auto i : index.topological_order())
      ordered[i] = true;
    for (size_t i = 0; i < n; ++i)
      if (!ordered[i])
        return node_error(nodes[i], core::invalid_argument_error(
                                      "the graph has a cycle through node '",
                                      nodes[i].name,
                                      "' that does not pass through a "
                                      "NextIteration"));
  }
  // Pass 4: control flow. A Merge joins at least two inputs; every node is
  // in one loop frame.
  for (size_t i = 0; i < n; ++i)
    if (index.role(i) == flow_role::merge
        && std::get<int64_t>(nodes[i].attrs.at("N")) < 2)
      return node_error(nodes[i], core::invalid_argument_error(
                                    "Merge node '", nodes[i].name,
                                    "' has one input; it needs two or more"));
  control_flow_info info;
  ACTORFLOW_RETURN_IF_ERROR(build_control_flow_info(g, index, &info));
  if (types_out != nullptr)
    *types_out = std::move(types);
  if (info_out != nullptr)
    *info_out = std::move(info);
  return core::status::ok();
}

} // namespace actorflow::graph
