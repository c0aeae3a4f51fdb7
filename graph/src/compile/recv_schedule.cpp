// Recv scheduling: when a value sent to another task may leave.

#include "compile/recv_schedule.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "actorflow/core/device_name.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph::detail {

bool same_task(const std::string& a, const std::string& b) {
  auto x = core::device_name::parse(a);
  auto y = core::device_name::parse(b);
  return x && y && x->job == y->job && x->task == y->task;
}

namespace {

/// Whether the edge `e` closes a loop (it leaves a NextIteration).
bool back_edge(const graph_index& index, const graph_edge& e) {
  return index.role(static_cast<size_t>(e.src)) == flow_role::next_iteration;
}

/// The nodes in an order that follows the edges and, among the ready
/// nodes, takes the one that may start earliest as late as possible
/// (`alap`, then the graph's order).
std::vector<size_t> alap_order(const graph_index& index,
                               const std::vector<int>& alap) {
  auto n = index.size();
  std::vector<int> waiting(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (const auto& e : index.inputs(i))
      waiting[i] += back_edge(index, e) ? 0 : 1;
  using item = std::pair<int, size_t>;
  std::priority_queue<item, std::vector<item>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0)
      ready.emplace(alap[i], i);
  std::vector<size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    auto i = ready.top().second;
    ready.pop();
    order.push_back(i);
    for (const auto& e : index.consumers(i)) {
      if (back_edge(index, e))
        continue;
      auto dst = static_cast<size_t>(e.dst);
      if (--waiting[dst] == 0)
        ready.emplace(alap[dst], dst);
    }
  }
  return order;
}

} // namespace

std::map<transfer_key, std::string> recv_triggers(const graph& g,
                                                  const graph_index& index,
                                                  const graph_types& types,
                                                  const control_flow_info& info,
                                                  const ops::op_registry& ops) {
  std::map<transfer_key, std::string> result;
  const auto& nodes = g.nodes();
  auto n = nodes.size();
  const auto& topo = index.topological_order();
  if (topo.size() != n)
    return result; // not a valid graph: nothing is scheduled
  // The latest start of each node with unit costs: how far it is from the
  // graph's end along its longest path.
  std::vector<int> height(n, 0);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it)
    for (const auto& e : index.consumers(*it))
      if (!back_edge(index, e))
        height[*it] = std::max(height[*it], height[e.dst] + 1);
  auto longest = n == 0 ? 0 : *std::max_element(height.begin(), height.end());
  std::vector<int> alap(n);
  for (size_t i = 0; i < n; ++i)
    alap[i] = longest - height[i];
  auto order = alap_order(index, alap);
  std::vector<size_t> pos(n);
  for (size_t k = 0; k < order.size(); ++k)
    pos[order[k]] = k;
  // Which nodes could serve as triggers, by device in that order.
  std::vector<bool> dead(n, false), waits(n, false);
  std::map<std::string, std::vector<size_t>> candidates;
  for (auto i : order) {
    const auto& node = nodes[i];
    auto role = index.role(i);
    bool any_dead = false, all_dead = true, has_data = false;
    for (const auto& e : index.inputs(i)) {
      if (back_edge(index, e))
        continue;
      auto src = static_cast<size_t>(e.src);
      any_dead = any_dead || dead[src];
      if (!e.control())
        all_dead = all_dead && dead[src];
      has_data = has_data || !e.control();
      waits[i] = waits[i] || waits[src];
    }
    dead[i] = role == flow_role::switch_node
              || (role == flow_role::merge ? all_dead : any_dead);
    const auto* def = ops.find(node.op);
    waits[i] = waits[i] || (def != nullptr && def->is_stateful && has_data);
    // A node with no inputs runs as the step starts: waiting for it gains
    // nothing. The runtime's own nodes (a feed, a fetch) are left alone.
    bool root = index.inputs(i).empty();
    bool runtime_op = !node.op.empty() && node.op.front() == '_';
    if (info.node_frame[i] == 0 && role == flow_role::none && !dead[i]
        && !waits[i] && !root && !runtime_op)
      candidates[node.device].push_back(i);
  }
  // Each remote value's first consumer on each device that receives it.
  std::map<transfer_key, size_t> first;
  for (size_t i = 0; i < n; ++i) {
    if (info.node_frame[i] != 0)
      continue;
    for (const auto& e : index.inputs(i)) {
      auto src = static_cast<size_t>(e.src);
      if (e.control() || info.node_frame[src] != 0
          || same_task(nodes[src].device, nodes[i].device)
          || types.outputs[src][static_cast<size_t>(e.port)].is_ref)
        continue;
      transfer_key key{nodes[src].name, e.port, nodes[i].device};
      auto [at, fresh] = first.emplace(key, i);
      if (!fresh && pos[i] < pos[at->second])
        at->second = i;
    }
  }
  for (const auto& [key, consumer] : first) {
    auto c = candidates.find(std::get<2>(key));
    if (c == candidates.end())
      continue;
    const auto& list = c->second;
    auto end
      = std::lower_bound(list.begin(), list.end(), consumer,
                         [&](size_t a, size_t b) { return pos[a] < pos[b]; });
    for (auto it = end; it != list.begin();) {
      --it;
      if (alap[*it] <= alap[consumer] - recv_lead_levels) {
        result.emplace(key, nodes[*it].name);
        break;
      }
    }
  }
  return result;
}

} // namespace actorflow::graph::detail
