// The cse pass: nodes that compute the same thing from the same inputs
// merged into one.

#include <algorithm>
#include <functional>
#include <map>

#include "actorflow/graph/graph_passes.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

/// Whether two nodes have the same attrs.
bool same_attrs(const core::attr_map& x, const core::attr_map& y) {
  if (x.size() != y.size())
    return false;
  for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
    if (i->first != j->first || !core::attr_equal(i->second, j->second))
      return false;
  return true;
}

/// Rewrites each input of node `i` of `g` that names a node `replaced`
/// replaced to name the node that replaced it; leaves the node (and the
/// graph's edges) alone when none does.
void redirect(graph& g, size_t i,
              const std::map<std::string, std::string>& replaced) {
  if (replaced.empty())
    return;
  const auto& inputs = g.nodes()[i].inputs;
  for (size_t k = 0; k < inputs.size(); ++k) {
    core::input_ref r;
    if (!core::input_ref::parse(inputs[k], &r))
      continue;
    auto to = replaced.find(r.node);
    if (to == replaced.end())
      continue;
    r.node = to->second;
    g.mutable_nodes()[i].inputs[k] = r.to_string();
  }
}

/// Whether `node`'s control inputs are sorted and without repeats.
bool controls_sorted(const core::node_def& node) {
  auto from = std::find_if(node.inputs.begin(), node.inputs.end(),
                           core::is_control_input);
  return std::adjacent_find(from, node.inputs.end(),
                            std::greater_equal<std::string>{})
         == node.inputs.end();
}

/// Sorts `node`'s control inputs and drops repeats.
void sort_controls(core::node_def& node) {
  auto from = std::find_if(node.inputs.begin(), node.inputs.end(),
                           core::is_control_input);
  std::sort(from, node.inputs.end());
  node.inputs.erase(std::unique(from, node.inputs.end()), node.inputs.end());
}

/// The node's op, device and inputs (control inputs sorted, without
/// repeats): equal for nodes that compute the same given equal attrs.
std::string signature(const core::node_def& node) {
  std::string key = node.op;
  key += '\n';
  key += node.device;
  for (const auto& in : node.inputs) {
    key += '\n';
    key += in;
  }
  return key;
}

} // namespace

core::status common_subexpressions(graph& g, const pass_context& ctx,
                                   std::vector<std::string>* log) {
  // Read through `nodes`, changed through g.mutable_nodes() (the same
  // vector) only where something changes: a graph this pass leaves as it
  // was keeps its edges.
  const auto& nodes = g.nodes();
  std::map<std::string, std::string> replaced;     // duplicate -> kept node
  std::map<std::string, std::vector<size_t>> seen; // signature -> nodes
  std::vector<bool> removed(nodes.size(), false);
  // In topological order a node's inputs are final when it is looked at,
  // so chains of duplicates collapse in one pass.
  for (auto i : detail::topological_order(g)) {
    redirect(g, i, replaced);
    const auto& node = nodes[i];
    if (!detail::is_pure(g, ctx.ops, node))
      continue;
    if (!controls_sorted(node))
      sort_controls(g.mutable_nodes()[i]);
    auto& same = seen[signature(node)];
    auto match = std::find_if(same.begin(), same.end(), [&](size_t j) {
      return same_attrs(nodes[j].attrs, node.attrs);
    });
    if (match == same.end() || ctx.keep.count(node.name) != 0) {
      same.push_back(i);
      continue;
    }
    replaced.emplace(node.name, nodes[*match].name);
    removed[i] = true;
    if (log != nullptr)
      log->push_back(node.name + " (" + node.op + ") is " + nodes[*match].name);
  }
  if (replaced.empty())
    return core::status::ok();
  // Inputs from NextIteration into a Merge were not in the order above.
  for (size_t i = 0; i < nodes.size(); ++i)
    redirect(g, i, replaced);
  return detail::remove_nodes(g, removed);
}

} // namespace actorflow::graph::passes
