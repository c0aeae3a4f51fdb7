#include "worker/idle_nodes.hpp"

#include <algorithm>

namespace actorflow::actors::detail {

namespace {

/// Where a data input comes from: a node and its output port.
struct source {
  int node = -1;
  int port = 0;
};

/// Erases the edges to node `dst` from `edges`.
void erase_edges_to(std::vector<node_item::edge>& edges, int dst) {
  edges.erase(
    std::remove_if(edges.begin(), edges.end(),
                   [dst](const node_item::edge& e) { return e.dst == dst; }),
    edges.end());
}

} // namespace

void skip_idle_nodes(partition_plan& plan, const graph::graph_index& index,
                     const ops::op_registry& ops) {
  auto& nodes = plan.nodes;
  auto n = nodes.size();
  std::vector<bool> read(n, false);
  std::vector<source> input(n);
  for (size_t i = 0; i < n; ++i)
    for (const auto& e : index.inputs(i)) {
      read[static_cast<size_t>(e.src)] = true;
      if (!e.control())
        input[i] = source{e.src, e.port};
    }
  std::vector<bool> forwards(n, false);
  for (size_t i = 0; i < n; ++i) {
    const auto& item = nodes[i];
    auto from = input[i];
    if (item.kind != node_kind::kernel || item.def.inputs.size() != 1
        || from.node < 0)
      continue;
    const auto& producer = nodes[static_cast<size_t>(from.node)];
    forwards[i]
      = (item.def.op == "LoopCond"
         || (item.def.op == "Identity" && producer.unset_outputs_dead))
        && item.constants.empty() && item.invariant_slots.empty()
        && item.num_control == 0 && item.control_out.empty()
        && !producer.out_types[static_cast<size_t>(from.port)].is_ref;
  }
  // The first producer up a chain of forwarding nodes.
  auto origin = [&](source s) {
    for (size_t hops = 0; hops < n && forwards[static_cast<size_t>(s.node)];
         ++hops)
      s = input[static_cast<size_t>(s.node)];
    return s;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!forwards[i])
      continue;
    auto s = origin(input[i]);
    auto& to
      = nodes[static_cast<size_t>(s.node)].out[static_cast<size_t>(s.port)];
    for (const auto& e : nodes[i].out[0])
      if (!forwards[static_cast<size_t>(e.dst)])
        to.push_back(e);
    nodes[i].out[0].clear();
    nodes[i].skipped = true;
  }
  for (auto& item : nodes)
    for (auto& port : item.out)
      port.erase(std::remove_if(port.begin(), port.end(),
                                [&](const node_item::edge& e) {
                                  return forwards[static_cast<size_t>(e.dst)];
                                }),
                 port.end());
  // What had readers and has none left, until nothing more goes.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < n; ++i) {
      auto& item = nodes[i];
      const auto* def = ops.find(item.def.op);
      if (item.skipped || !read[i] || item.kind != node_kind::kernel
          || def == nullptr || def->is_stateful || !item.control_out.empty()
          || std::any_of(item.out.begin(), item.out.end(),
                         [](const auto& es) { return !es.empty(); }))
        continue;
      item.skipped = changed = true;
      auto me = static_cast<int>(i);
      for (const auto& e : index.inputs(i)) {
        if (e.control()) {
          auto& cut = nodes[static_cast<size_t>(e.src)].control_out;
          cut.erase(std::remove(cut.begin(), cut.end(), me), cut.end());
        } else {
          auto s = origin(source{e.src, e.port});
          erase_edges_to(
            nodes[static_cast<size_t>(s.node)].out[static_cast<size_t>(s.port)],
            me);
        }
      }
    }
  }
}

} // namespace actorflow::actors::detail
