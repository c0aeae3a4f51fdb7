// What the graph passes share: purity, inputs, consumers, liveness and
// order.

#include "compile/passes/pass_util.hpp"

#include <algorithm>

#include "actorflow/ops/registration.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph::detail {

bool is_runtime_op(const std::string& op) {
  return op == ops::runtime_op::feed || op == ops::runtime_op::fetch
         || op == ops::runtime_op::send || op == ops::runtime_op::recv;
}

bool is_fixed_op(const std::string& op) {
  return flow_role_of(op) != flow_role::none || op == "Placeholder"
         || is_runtime_op(op);
}

bool is_ref_output(const ops::op_registry& ops, const core::node_def& producer,
                   int port) {
  const auto* def = ops.find(producer.op);
  if (def == nullptr)
    return true; // unknown: assume the worst
  std::vector<ops::arg_type> in, out;
  auto attrs = producer.attrs;
  if (!def->check_attrs(attrs).is_ok()
      || !def->resolve_types(attrs, &in, &out).is_ok())
    return true;
  return port >= static_cast<int>(out.size())
         || out[static_cast<size_t>(port)].is_ref;
}

bool is_pure(const graph& g, const ops::op_registry& ops,
             const core::node_def& node) {
  if (is_fixed_op(node.op))
    return false;
  const auto* def = ops.find(node.op);
  if (def == nullptr || def->is_stateful)
    return false;
  for (const auto& arg : def->inputs)
    if (arg.is_ref)
      return false;
  for (const auto& arg : def->outputs)
    if (arg.is_ref)
      return false;
  for (const auto& in : data_inputs(node)) {
    const auto* producer = g.find(in.node);
    if (producer == nullptr || is_ref_output(ops, *producer, in.port))
      return false;
  }
  return true;
}

consumers::consumers(const graph& g)
  : data(g.size(), 0), control(g.size(), 0), reader(g.size(), -1),
    past_first(g.size(), false) {
  auto edges = g.edges();
  const auto& index = *edges;
  for (size_t i = 0; i < g.size(); ++i)
    for (const auto& e : index.inputs(i)) {
      auto from = static_cast<size_t>(e.src);
      ++(e.control() ? control : data)[from];
      reader[from] = e.dst;
      if (e.port > 0)
        past_first[from] = true;
    }
}

bool only_read_by(const graph& g, const consumers& c,
                  const std::set<std::string>& keep,
                  const core::node_def& producer, const core::node_def& node) {
  auto i = static_cast<size_t>(g.index_of(producer.name));
  return c.data[i] == 1 && c.control[i] == 0
         && c.reader[i] == g.index_of(node.name)
         && keep.count(producer.name) == 0 && producer.device == node.device;
}

core::status remove_nodes(graph& g, const std::vector<bool>& marked) {
  if (std::find(marked.begin(), marked.end(), true) == marked.end())
    return core::status::ok(); // the graph keeps its edges
  auto& nodes = g.mutable_nodes();
  size_t kept = 0;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!marked[i]) {
      if (kept != i)
        nodes[kept] = std::move(nodes[i]);
      ++kept;
    }
  nodes.resize(kept);
  return g.reindex();
}

std::optional<std::string> liveness_of(const graph& g, core::input_ref ref,
                                       bool exactly) {
  for (size_t hops = 0; hops <= g.size(); ++hops) {
    const auto* node = g.find(ref.node);
    if (node == nullptr)
      return std::nullopt;
    auto in = data_inputs(*node);
    if (node->op == "Identity" || node->op == "IdentityN") {
      if (ref.port < 0 || ref.port >= static_cast<int>(in.size())
          || (exactly && in.size() != node->inputs.size()))
        return std::nullopt;
      ref = in[static_cast<size_t>(ref.port)];
      continue;
    }
    if (node->op == "Switch" && in.size() == 2)
      return "switch " + in[1].to_string() + " port "
             + std::to_string(ref.port);
    if (node->op != "Merge" || ref.port != 0)
      return std::nullopt;
    // A loop's Merge: an Enter's value, then a NextIteration's.
    const core::node_def* enter = nullptr;
    bool next = false;
    for (const auto& arg : in) {
      const auto* from = g.find(arg.node);
      if (from != nullptr && from->op == "Enter")
        enter = from;
      next = next || (from != nullptr && from->op == "NextIteration");
    }
    auto frame = enter != nullptr ? enter->attrs.find("frame_name")
                                  : core::attr_map::const_iterator{};
    if (enter == nullptr || !next || frame == enter->attrs.end())
      return std::nullopt;
    return "frame " + std::get<std::string>(frame->second);
  }
  return std::nullopt;
}

std::vector<size_t> topological_order(const graph& g) {
  auto order = g.edges()->topological_order();
  // A validated graph has no other cycle; should one remain, its nodes
  // come last, in the graph's order.
  std::vector<bool> placed(g.size(), false);
  for (auto i : order)
    placed[i] = true;
  for (size_t i = 0; i < g.size(); ++i)
    if (!placed[i])
      order.push_back(i);
  return order;
}

} // namespace actorflow::graph::detail
