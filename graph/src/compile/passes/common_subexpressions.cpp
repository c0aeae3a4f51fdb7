// The cse pass: nodes that compute the same thing from the same inputs
// merged into one.

#include <algorithm>
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

/// Rewrites `text` (an input) to name the node that replaced its own.
void redirect(std::string& text,
              const std::map<std::string, std::string>& replaced) {
  core::input_ref r;
  if (!core::input_ref::parse(text, &r))
    return;
  auto i = replaced.find(r.node);
  if (i == replaced.end())
    return;
  r.node = i->second;
  text = r.to_string();
}

/// The node's op, device and inputs (control inputs sorted, without
/// repeats): equal for nodes that compute the same given equal attrs.
std::string signature(core::node_def& node) {
  auto first_control = std::find_if(
    node.inputs.begin(), node.inputs.end(),
    [](const std::string& s) { return !s.empty() && s[0] == '^'; });
  std::sort(first_control, node.inputs.end());
  node.inputs.erase(std::unique(first_control, node.inputs.end()),
                    node.inputs.end());
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
  auto& nodes = g.mutable_nodes();
  std::map<std::string, std::string> replaced;     // duplicate -> kept node
  std::map<std::string, std::vector<size_t>> seen; // signature -> nodes
  std::vector<bool> removed(nodes.size(), false);
  // In topological order a node's inputs are final when it is looked at,
  // so chains of duplicates collapse in one pass.
  for (auto i : detail::topological_order(g)) {
    auto& node = nodes[i];
    for (auto& text : node.inputs)
      redirect(text, replaced);
    if (!detail::is_pure(g, ctx.ops, node))
      continue;
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
  for (auto& node : nodes)
    for (auto& text : node.inputs)
      redirect(text, replaced);
  return detail::remove_nodes(g, removed);
}

} // namespace actorflow::graph::passes
