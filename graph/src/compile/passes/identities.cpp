// The identities pass: control inputs a data input already implies, then
// Identity and IdentityN nodes that only forward a value, their readers
// made to read what they read.

#include <algorithm>
#include <utility>

#include "actorflow/graph/graph_passes.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

/// One input of a node: the node and the slot in its `inputs`.
struct slot {
  size_t node;
  size_t index;
};

/// Drops each control input ^c of a node that some data input of the node
/// already implies: c is itself a data input, or c is an Identity without
/// control inputs (or a loop's Merge) whose value is live whenever one of
/// the node's data inputs is (`liveness_of`) -- TensorFlow's
/// lowering gates a While body's nodes on its first loop variable's
/// Identity and a cond's branch nodes on their pivot, though their data
/// comes through the same predicate.
void drop_implied_controls(graph& g, std::vector<std::string>* log) {
  const auto& nodes = g.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    auto data = detail::data_inputs(node);
    if (data.empty())
      continue; // the control input places it in its frame
    std::vector<std::string> keys;
    for (const auto& in : data)
      if (auto key = detail::liveness_of(g, in))
        keys.push_back(*key);
    auto implied = [&](const std::string& text) {
      if (!core::is_control_input(text))
        return false;
      auto name = text.substr(1);
      for (const auto& in : data)
        if (in.node == name)
          return true;
      const auto* c = g.find(name);
      if (c == nullptr || !detail::control_inputs(*c).empty()
          || (c->op != "Identity" && c->op != "Merge"))
        return false;
      auto key = detail::liveness_of(g, core::input_ref{name, 0, false}, true);
      return key && std::find(keys.begin(), keys.end(), *key) != keys.end();
    };
    auto dropped
      = std::count_if(node.inputs.begin(), node.inputs.end(), implied);
    if (dropped == 0)
      continue; // unchanged: the graph keeps its edges
    if (log != nullptr)
      log->push_back(node.name + " (" + node.op + ") no longer waits for "
                     + std::to_string(dropped)
                     + " control input(s) its data inputs imply");
    auto& inputs = g.mutable_nodes()[i].inputs;
    inputs.erase(std::remove_if(inputs.begin(), inputs.end(), implied),
                 inputs.end());
  }
}

/// Whether `node` (at index `i`) may go, its readers reading its inputs:
/// see `identities`.
bool removable(const graph& g, const pass_context& ctx,
               const std::vector<std::vector<slot>>& readers,
               const std::vector<bool>& removed, size_t i) {
  const auto& node = g.nodes()[i];
  if ((node.op != "Identity" && node.op != "IdentityN")
      || ctx.keep.count(node.name) != 0)
    return false;
  for (const auto& in : detail::data_inputs(node)) {
    const auto* producer = g.find(in.node);
    if (producer == nullptr || producer->device != node.device
        || detail::is_ref_output(ctx.ops, *producer, in.port))
      return false;
  }
  bool has_controls = !detail::control_inputs(node).empty();
  bool read = false;
  for (const auto& r : readers[i]) {
    if (removed[r.node])
      continue;
    const auto& reader = g.nodes()[r.node];
    if (core::is_control_input(reader.inputs[r.index])
        || (has_controls && detail::is_fixed_op(reader.op)))
      return false;
    read = true;
  }
  return read;
}

} // namespace

core::status identities(graph& g, const pass_context& ctx,
                        std::vector<std::string>* log) {
  drop_implied_controls(g, log);
  const auto& nodes = g.nodes();
  // Who reads each node, by slot; kept current as readers are rewired
  // (entries of removed readers stay, and are skipped).
  std::vector<std::vector<slot>> readers(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    for (size_t k = 0; k < nodes[i].inputs.size(); ++k) {
      core::input_ref r;
      if (!core::input_ref::parse(nodes[i].inputs[k], &r))
        continue;
      auto from = g.index_of(r.node);
      if (from >= 0)
        readers[static_cast<size_t>(from)].push_back({i, k});
    }
  std::vector<bool> removed(nodes.size(), false);
  bool any = false;
  for (auto i : detail::topological_order(g)) {
    if (!removable(g, ctx, readers, removed, i))
      continue;
    const auto& node = nodes[i];
    auto inputs = detail::data_inputs(node);
    auto controls = detail::control_inputs(node);
    for (const auto& r : readers[i]) {
      if (removed[r.node])
        continue;
      auto& reader = g.mutable_nodes()[r.node];
      core::input_ref read;
      core::input_ref::parse(reader.inputs[r.index], &read);
      if (read.port < 0 || read.port >= static_cast<int>(inputs.size()))
        return core::internal_error("node '", reader.name, "' reads output ",
                                    read.port, " of '", node.name, "' (",
                                    node.op, "), which has ", inputs.size());
      const auto& forwarded = inputs[static_cast<size_t>(read.port)];
      reader.inputs[r.index] = forwarded.to_string();
      readers[static_cast<size_t>(g.index_of(forwarded.node))].push_back(r);
      // The reader waits for what the node waited for.
      for (const auto& ctl : controls) {
        auto edge = "^" + ctl;
        if (ctl == reader.name
            || std::find(reader.inputs.begin(), reader.inputs.end(), edge)
                 != reader.inputs.end())
          continue;
        reader.inputs.push_back(edge);
        readers[static_cast<size_t>(g.index_of(ctl))].push_back(
          {r.node, reader.inputs.size() - 1});
      }
    }
    removed[i] = any = true;
    if (log != nullptr)
      log->push_back(node.name + " (" + node.op + ") only forwarded "
                     + (inputs.size() == 1
                          ? inputs[0].to_string()
                          : std::to_string(inputs.size()) + " values"));
  }
  return any ? detail::remove_nodes(g, removed) : core::status::ok();
}

} // namespace actorflow::graph::passes
