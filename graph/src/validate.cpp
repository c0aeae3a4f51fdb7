#include "actorflow/graph/validate.hpp"

#include "actorflow/graph/control_flow_info.hpp"

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

core::status validate(graph& g, const ops::op_registry& registry,
                      graph_types* types_out, bool internal) {
  graph_types types;
  auto n = g.size();
  types.inputs.resize(n);
  types.outputs.resize(n);
  auto& nodes = g.mutable_nodes();
  // Pass 1: ops, attrs and dtypes of every node.
  for (size_t i = 0; i < n; ++i) {
    auto& node = nodes[i];
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
    auto st = op->check_attrs(node.attrs);
    if (!st.is_ok())
      return node_error(node, st);
    st = op->resolve_types(node.attrs, &types.inputs[i], &types.outputs[i]);
    if (!st.is_ok())
      return node_error(node, st);
  }
  // Pass 2: inputs and edge dtypes.
  for (size_t i = 0; i < n; ++i) {
    const auto& node = nodes[i];
    size_t data_inputs = 0;
    bool seen_control = false;
    for (const auto& text : node.inputs) {
      core::input_ref in;
      if (!core::input_ref::parse(text, &in))
        return node_error(
          node, core::invalid_argument_error("malformed input '", text,
                                             "' of node '", node.name, "'"));
      auto src = g.index_of(in.node);
      if (src < 0)
        return node_error(node,
                          core::invalid_argument_error(
                            "node '", node.name, "' has a dangling input '",
                            text, "': no node named '", in.node, "'"));
      if (in.control) {
        seen_control = true;
        continue;
      }
      if (seen_control)
        return node_error(node, core::invalid_argument_error(
                                  "node '", node.name, "' lists data input '",
                                  text, "' after a control input"));
      const auto& src_out = types.outputs[static_cast<size_t>(src)];
      if (in.port >= static_cast<int>(src_out.size()))
        return node_error(node, core::invalid_argument_error(
                                  "node '", node.name, "' reads output ",
                                  in.port, " of '", in.node, "', which has ",
                                  src_out.size(), " outputs"));
      if (data_inputs >= types.inputs[i].size()) {
        ++data_inputs;
        continue; // counted below
      }
      auto st
        = check_edge(node, data_inputs, text, types.inputs[i][data_inputs],
                     src_out[static_cast<size_t>(in.port)]);
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
  // Pass 3: every cycle must pass through a NextIteration. Kahn's algorithm
  // over the graph without NextIteration's out-edges.
  std::vector<std::vector<int>> consumers(n);
  std::vector<int> pending(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (const auto& text : nodes[i].inputs) {
      core::input_ref in;
      core::input_ref::parse(text, &in);
      auto src = static_cast<size_t>(g.index_of(in.node));
      if (nodes[src].op == "NextIteration")
        continue;
      consumers[src].push_back(static_cast<int>(i));
      ++pending[i];
    }
  std::vector<int> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0)
      ready.push_back(static_cast<int>(i));
  size_t visited = 0;
  while (!ready.empty()) {
    auto i = static_cast<size_t>(ready.back());
    ready.pop_back();
    ++visited;
    for (auto c : consumers[i])
      if (--pending[static_cast<size_t>(c)] == 0)
        ready.push_back(c);
  }
  if (visited != n)
    for (size_t i = 0; i < n; ++i)
      if (pending[i] > 0)
        return node_error(nodes[i], core::invalid_argument_error(
                                      "the graph has a cycle through node '",
                                      nodes[i].name,
                                      "' that does not pass through a "
                                      "NextIteration"));
  // Pass 4: control flow. A Merge joins at least two inputs; every node is
  // in one loop frame.
  for (const auto& node : nodes)
    if (node.op == "Merge" && std::get<int64_t>(node.attrs.at("N")) < 2)
      return node_error(node, core::invalid_argument_error(
                                "Merge node '", node.name,
                                "' has one input; it needs two or more"));
  control_flow_info info;
  ACTORFLOW_RETURN_IF_ERROR(build_control_flow_info(g, &info));
  if (types_out != nullptr)
    *types_out = std::move(types);
  return core::status::ok();
}

} // namespace actorflow::graph
