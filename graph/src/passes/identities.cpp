// The identities pass: Identity and IdentityN nodes that only forward a
// value, their readers made to read what they read.

#include <algorithm>
#include <utility>

#include "actorflow/graph/optimizer.hpp"
#include "pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

/// One input of a node: the node and the slot in its `inputs`.
struct slot {
  size_t node;
  size_t index;
};

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
    if (reader.inputs[r.index][0] == '^'
        || (has_controls && detail::is_fixed_op(reader.op)))
      return false;
    read = true;
  }
  return read;
}

} // namespace

core::status identities(graph& g, const pass_context& ctx,
                        std::vector<std::string>* log) {
  auto& nodes = g.mutable_nodes();
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
      auto& reader = nodes[r.node];
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
