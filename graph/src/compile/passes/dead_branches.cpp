// The dead_branches pass: a cond whose predicate is a constant (Keras'
// learning phase, once constant folding has made the unfed
// PlaceholderWithDefault its default) runs one branch only; the other goes,
// and the Switches and Merges around the branch that runs with it.

#include <algorithm>
#include <map>

#include "actorflow/graph/graph_passes.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

bool is_merge(const std::string& op) {
  return op == "Merge" || op == "RefMerge";
}

/// The port a Switch with a constant boolean predicate forwards (1 for
/// true), or -1.
int taken_port(const graph& g, const core::node_def& node) {
  if (node.op != "Switch")
    return -1;
  auto data = detail::data_inputs(node);
  if (data.size() != 2 || data[1].port != 0)
    return -1;
  const auto* pred = g.find(data[1].node);
  if (pred == nullptr || pred->op != "Const")
    return -1;
  const auto& value = std::get<core::tensor>(pred->attrs.at("value"));
  if (value.dtype() != core::dtype::bool_ || value.num_elements() != 1)
    return -1;
  return value.data<bool>()[0] ? 1 : 0;
}

/// Which nodes never run: those with a dead data or control input, a
/// Merge only when all its inputs are (a loop's Merge: all but its
/// NextIteration, which cannot run first), and the untaken port of a
/// constant Switch is dead.
std::vector<bool> dead_nodes_of(const graph& g, const std::vector<int>& taken) {
  const auto& nodes = g.nodes();
  std::vector<bool> dead(nodes.size(), false);
  auto dead_edge = [&](const core::input_ref& in) {
    auto from = static_cast<size_t>(g.index_of(in.node));
    return dead[from]
           || (!in.control && taken[from] >= 0 && in.port != taken[from]);
  };
  for (auto i : detail::topological_order(g)) {
    const auto& node = nodes[i];
    std::vector<core::input_ref> ins;
    for (const auto& text : node.inputs) {
      core::input_ref in;
      if (core::input_ref::parse(text, &in) && g.index_of(in.node) >= 0)
        ins.push_back(in);
    }
    if (is_merge(node.op)) {
      bool any = false, all = true;
      for (const auto& in : ins)
        if (!in.control && g.find(in.node)->op != "NextIteration") {
          any = true;
          all = all && dead_edge(in);
        }
      dead[i] = any && all;
    } else {
      dead[i] = std::any_of(ins.begin(), ins.end(), dead_edge);
    }
  }
  return dead;
}

/// Who reads each node (by name): the indices of its readers, kept
/// current as readers are rewired.
using reader_index = std::map<std::string, std::vector<size_t>>;

reader_index readers_of(const graph& g) {
  reader_index readers;
  const auto& nodes = g.nodes();
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& text : nodes[i].inputs) {
      core::input_ref in;
      if (core::input_ref::parse(text, &in))
        readers[in.node].push_back(i);
    }
  return readers;
}

/// Makes every reader of `from` (its output `port`, or its control output)
/// read `to` instead, and wait for `controls`.
void rewire(graph& g, reader_index& readers, const std::string& from, int port,
            const core::input_ref& to,
            const std::vector<std::string>& controls) {
  auto& nodes = g.mutable_nodes();
  auto list = readers[from];
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  for (auto r : list) {
    auto& reader = nodes[r];
    bool read = false;
    for (auto& text : reader.inputs) {
      core::input_ref in;
      if (!core::input_ref::parse(text, &in) || in.node != from)
        continue;
      if (in.control)
        text = "^" + to.node;
      else if (in.port == port)
        text = to.to_string();
      else
        continue;
      read = true;
    }
    if (!read)
      continue;
    readers[to.node].push_back(r);
    for (const auto& c : controls)
      if (std::find(reader.inputs.begin(), reader.inputs.end(), "^" + c)
          == reader.inputs.end()) {
        reader.inputs.push_back("^" + c);
        readers[c].push_back(r);
      }
  }
}

} // namespace

core::status dead_branches(graph& g, const pass_context& ctx,
                           std::vector<std::string>* log) {
  const auto& nodes = g.nodes();
  std::vector<int> taken(nodes.size(), -1);
  bool any = false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    taken[i] = taken_port(g, nodes[i]);
    any = any || taken[i] >= 0;
  }
  if (!any)
    return core::status::ok();
  auto dead = dead_nodes_of(g, taken);
  // What the rewrite does not handle leaves the graph as it is: a dead
  // node that must stay (a target, a fetch, a send), a constant Switch
  // read by control edge, a Merge whose index output is read or that
  // waits on a dead node.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    if (dead[i]
        && (ctx.keep.count(node.name) != 0 || detail::is_runtime_op(node.op)))
      return core::status::ok();
    for (const auto& text : node.inputs) {
      core::input_ref in;
      if (!core::input_ref::parse(text, &in) || g.index_of(in.node) < 0)
        continue;
      auto from = static_cast<size_t>(g.index_of(in.node));
      if (dead[i] || dead[from])
        continue;
      if ((in.control && taken[from] >= 0)
          || (is_merge(nodes[from].op) && in.port == 1)
          || (is_merge(node.op) && in.control && dead[from]))
        return core::status::ok();
    }
  }
  std::vector<bool> removed = dead;
  auto readers = readers_of(g);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (dead[i])
      continue;
    const auto node = nodes[i]; // a copy: rewire changes the nodes
    auto data = detail::data_inputs(node);
    if (taken[i] >= 0) {
      rewire(g, readers, node.name, taken[i], data[0],
             detail::control_inputs(node));
      removed[i] = true;
      if (log != nullptr)
        log->push_back(node.name + " (Switch) always forwards to port "
                       + std::to_string(taken[i]));
      continue;
    }
    if (!is_merge(node.op))
      continue;
    std::vector<core::input_ref> live;
    for (const auto& in : data) {
      auto from = static_cast<size_t>(g.index_of(in.node));
      if (!dead[from] && (taken[from] < 0 || in.port == taken[from]))
        live.push_back(in);
    }
    if (live.size() == data.size())
      continue;
    if (live.size() > 1) { // a Merge of fewer branches
      auto& merge = g.mutable_nodes()[i];
      merge.inputs.clear();
      for (const auto& in : live)
        merge.inputs.push_back(in.to_string());
      for (const auto& c : detail::control_inputs(node))
        merge.inputs.push_back("^" + c);
      merge.attrs["N"] = static_cast<int64_t>(live.size());
      continue;
    }
    rewire(g, readers, node.name, 0, live[0], detail::control_inputs(node));
    removed[i] = true;
    if (log != nullptr)
      log->push_back(node.name + " (" + node.op + ") always forwards "
                     + live[0].to_string());
  }
  if (log != nullptr)
    for (size_t i = 0; i < nodes.size(); ++i)
      if (dead[i])
        log->push_back(nodes[i].name + " (" + nodes[i].op
                       + ") is in a branch that never runs");
  return detail::remove_nodes(g, removed);
}

} // namespace actorflow::graph::passes
