// The loop_invariants pass: a loop variable the body passes on unchanged
// becomes a constant Enter.

#include <algorithm>
#include <optional>
#include <utility>

#include "actorflow/graph/graph_passes.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

/// One loop variable's nodes: Enter -> Merge -> Switch -> (Exit,
/// NextIteration -> Merge).
struct loop_variable {
  size_t enter, merge, select, next;
  std::vector<size_t> exits;
};

/// Whether input `text` names output `port` of `node`.
bool reads(const std::string& text, const std::string& node, int port) {
  core::input_ref r;
  return core::input_ref::parse(text, &r) && !r.control && r.node == node
         && r.port == port;
}

/// Whether input `text` names `node` at all, data or control.
bool names(const std::string& text, const std::string& node) {
  core::input_ref r;
  return core::input_ref::parse(text, &r) && r.node == node;
}

/// The variable whose NextIteration is `next`, when the body passes the
/// Switch's value straight back and nothing but its own nodes and readers
/// of the value that `movable` allows see them.
std::optional<loop_variable>
unchanged_variable(const graph& g, const pass_context& ctx, size_t next) {
  const auto& nodes = g.nodes();
  auto node_at = [&](const core::input_ref& r) -> const core::node_def* {
    return g.find(r.node);
  };
  auto in = detail::data_inputs(nodes[next]);
  if (in.size() != 1 || in[0].port != 1 || node_at(in[0]) == nullptr
      || node_at(in[0])->op != "Switch")
    return std::nullopt;
  const auto& select = *node_at(in[0]);
  auto select_in = detail::data_inputs(select);
  if (select_in.size() != 2 || select_in[0].port != 0
      || node_at(select_in[0]) == nullptr
      || node_at(select_in[0])->op != "Merge")
    return std::nullopt;
  const auto& merge = *node_at(select_in[0]);
  auto merge_in = detail::data_inputs(merge);
  if (merge_in.size() != 2 || merge.inputs.size() != 2)
    return std::nullopt;
  loop_variable v{};
  v.next = next;
  v.select = static_cast<size_t>(g.index_of(select.name));
  v.merge = static_cast<size_t>(g.index_of(merge.name));
  bool from_next = false, from_enter = false;
  for (const auto& m : merge_in) {
    const auto* from = node_at(m);
    if (from == nullptr || m.port != 0)
      return std::nullopt;
    if (from->name == nodes[next].name)
      from_next = true;
    else if (from->op == "Enter"
             && !std::get<bool>(from->attrs.at("is_constant"))) {
      from_enter = true;
      v.enter = static_cast<size_t>(g.index_of(from->name));
    }
  }
  if (!from_next || !from_enter || select.inputs.size() != 2
      || nodes[next].inputs.size() != 1)
    return std::nullopt;
  const auto& device = nodes[v.enter].device;
  for (auto i : {v.merge, v.select, v.next})
    if (nodes[i].device != device || ctx.keep.count(nodes[i].name) != 0)
      return std::nullopt;
  // The Enter feeds the Merge alone; the NextIteration, nothing else.
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& text : nodes[i].inputs)
      if ((i != v.merge
           && (names(text, nodes[v.enter].name)
               || names(text, nodes[next].name))))
        return std::nullopt;
  // The Exits: read by nothing, so the loop's end need not reach them.
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& text : nodes[i].inputs) {
      if (!names(text, select.name) || i == v.next)
        continue;
      if (nodes[i].op != "Exit" || !reads(text, select.name, 0)
          || ctx.keep.count(nodes[i].name) != 0)
        continue;
      v.exits.push_back(i);
    }
  for (auto exit : v.exits)
    for (const auto& node : nodes)
      for (const auto& text : node.inputs)
        if (names(text, nodes[exit].name))
          return std::nullopt;
  return v;
}

/// Whether `reader`, reading the variable's value `text`, may read the
/// constant Enter instead: it reads another value that arrives every
/// iteration (not a Const or a constant Enter), and, reading the Switch's
/// value rather than the Merge's, one live exactly when that is (the last
/// iteration, where the predicate is false, must not reach it).
bool movable(const graph& g, const core::node_def& reader,
             const std::string& text, const core::node_def& select) {
  core::input_ref read;
  core::input_ref::parse(text, &read);
  bool other = false, as_live = read.node != select.name;
  auto key = detail::liveness_of(g, read);
  for (const auto& in : detail::data_inputs(reader)) {
    if (in.node == read.node)
      continue;
    const auto* from = g.find(in.node);
    if (from == nullptr || from->op == "Const"
        || (from->op == "Enter"
            && std::get<bool>(from->attrs.at("is_constant"))))
      continue;
    other = true;
    as_live = as_live || (key && detail::liveness_of(g, in) == key);
  }
  return other && as_live;
}

} // namespace

core::status loop_invariants(graph& g, const pass_context& ctx,
                             std::vector<std::string>* log) {
  std::vector<bool> removed(g.size(), false);
  bool any = false;
  for (size_t next = 0; next < g.size(); ++next) {
    if (g.nodes()[next].op != "NextIteration" || removed[next])
      continue;
    auto v = unchanged_variable(g, ctx, next);
    if (!v)
      continue;
    const auto& nodes = g.nodes();
    const auto merge = nodes[v->merge].name;
    const auto select = nodes[v->select].name;
    // Every reader of the Merge's or the Switch's value but the
    // variable's own nodes must move to the Enter (on its device, so no
    // constant crosses devices inside the frame); none may wait on them.
    std::vector<std::pair<size_t, size_t>> moves; // node, input slot
    bool ok = true;
    for (size_t i = 0; i < nodes.size() && ok; ++i) {
      if (i == v->select || i == v->next
          || std::find(v->exits.begin(), v->exits.end(), i) != v->exits.end())
        continue;
      for (size_t k = 0; k < nodes[i].inputs.size() && ok; ++k) {
        const auto& text = nodes[i].inputs[k];
        if (!names(text, merge) && !names(text, select))
          continue;
        ok = (reads(text, merge, 0) || reads(text, select, 1))
             && nodes[i].device == nodes[v->enter].device
             && movable(g, nodes[i], text, nodes[v->select]);
        moves.emplace_back(i, k);
      }
    }
    if (!ok)
      continue;
    auto& changed = g.mutable_nodes();
    auto& enter = changed[v->enter];
    enter.attrs["is_constant"] = true;
    for (auto [i, k] : moves)
      changed[i].inputs[k] = enter.name;
    removed[v->merge] = removed[v->select] = removed[v->next] = true;
    for (auto exit : v->exits)
      removed[exit] = true;
    any = true;
    if (log != nullptr)
      log->push_back(enter.name + " (Enter) is constant: the loop passes "
                     + merge + " on unchanged");
  }
  return any ? detail::remove_nodes(g, removed) : core::status::ok();
}

} // namespace actorflow::graph::passes
