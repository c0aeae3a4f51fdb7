// A graph's edges parsed once: inputs, consumers, control-flow roles and a
// topological order.

#include "compile/graph_index.hpp"

#include <deque>

namespace actorflow::graph {

flow_role flow_role_of(std::string_view op) {
  struct entry {
    std::string_view op;
    flow_role role;
    bool has_ref_variant; ///< RefEnter, RefExit, ...: a reference's role.
  };
  static constexpr entry table[] = {
    {"Enter", flow_role::enter, true},
    {"Exit", flow_role::exit, true},
    {"NextIteration", flow_role::next_iteration, true},
    {"Merge", flow_role::merge, true},
    {"Switch", flow_role::switch_node, true},
    {"LoopCond", flow_role::loop_cond, false},
    {"ControlTrigger", flow_role::control_trigger, false},
  };
  static constexpr std::string_view ref = "Ref";
  bool is_ref = op.substr(0, ref.size()) == ref;
  auto base = is_ref ? op.substr(ref.size()) : op;
  for (const auto& e : table)
    if (e.op == base && (!is_ref || e.has_ref_variant))
      return e.role;
  return flow_role::none;
}

bool takes_step_resource(std::string_view op) {
  static constexpr std::string_view array = "TensorArray";
  return (op.substr(0, array.size()) == array && op != "TensorArrayV3")
         || op == "StackPushV2" || op == "StackPopV2";
}

graph_index::graph_index(const graph& g)
  : inputs_(g.size()), consumers_(g.size()), roles_(g.size()),
    bad_input_(g.size(), -1) {
  const auto& nodes = g.nodes();
  auto n = nodes.size();
  for (size_t i = 0; i < n; ++i) {
    roles_[i] = flow_role_of(nodes[i].op);
    int slot = 0;
    int position = 0;
    for (const auto& text : nodes[i].inputs) {
      core::input_ref r;
      auto src = core::input_ref::parse(text, &r) ? g.index_of(r.node) : -1;
      if (src < 0) {
        if (bad_input_[i] < 0)
          bad_input_[i] = position;
      } else {
        graph_edge e{src, static_cast<int>(i), r.control ? -1 : r.port,
                     r.control ? -1 : slot};
        inputs_[i].push_back(e);
        consumers_[static_cast<size_t>(src)].push_back(e);
      }
      if (!r.control)
        ++slot;
      ++position;
    }
  }
  // Kahn's algorithm without the edges out of NextIterations.
  std::vector<int> pending(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (const auto& e : inputs_[i])
      if (roles_[static_cast<size_t>(e.src)] != flow_role::next_iteration)
        ++pending[i];
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0)
      ready.push_back(i);
  order_.reserve(n);
  while (!ready.empty()) {
    auto i = ready.front();
    ready.pop_front();
    order_.push_back(i);
    if (roles_[i] == flow_role::next_iteration)
      continue;
    for (const auto& e : consumers_[i])
      if (--pending[static_cast<size_t>(e.dst)] == 0)
        ready.push_back(static_cast<size_t>(e.dst));
  }
}

} // namespace actorflow::graph
