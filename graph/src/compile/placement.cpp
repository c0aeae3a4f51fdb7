// Placement: every node of a run on a device, the devices stateful nodes
// keep, and the replica layout.

#include "compile/place.hpp"

#include <algorithm>
#include <numeric>

#include "actorflow/core/device_name.hpp"
#include "actorflow/core/logging.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph {

namespace {

int find_root(std::vector<int>& parent, int x) {
  while (parent[static_cast<size_t>(x)] != x) {
    parent[static_cast<size_t>(x)]
      = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    x = parent[static_cast<size_t>(x)];
  }
  return x;
}

bool is_runtime_op(const std::string& op) {
  return !op.empty() && op.front() == '_';
}

} // namespace

core::status place(graph& g, const graph_types& types,
                   const std::vector<std::string>& devices,
                   const ops::kernel_registry& kernels,
                   const std::string& default_device) {
  auto n = g.size();
  const auto& nodes = g.nodes();
  // Colocation groups: nodes joined by a reference edge, and a node using
  // a per-step resource (a TensorArray) with the node that made it and the
  // control-flow nodes passing its handle on between them.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto join = [&](int x, int y) {
    parent[static_cast<size_t>(find_root(parent, x))] = find_root(parent, y);
  };
  auto edges = g.edges();
  const auto& index = *edges;
  auto data_input = [&](size_t i, int slot) -> int {
    for (const auto& e : index.inputs(i))
      if (e.slot == slot)
        return e.src;
    return -1;
  };
  for (size_t i = 0; i < n; ++i) {
    for (const auto& e : index.inputs(i)) {
      auto slot = static_cast<size_t>(e.slot);
      if (!e.control() && slot < types.inputs[i].size()
          && types.inputs[i][slot].is_ref)
        join(static_cast<int>(i), e.src);
    }
    if (!takes_step_resource(nodes[i].op))
      continue;
    // Bounded by the graph's size: a handle's way back has no cycle but
    // through a NextIteration, which is not followed.
    auto at = data_input(i, 0);
    for (size_t hops = 0; at >= 0 && hops < n; ++hops) {
      join(static_cast<int>(i), at);
      auto u = static_cast<size_t>(at);
      auto role = index.role(u);
      bool forwards
        = nodes[u].op == "Identity"
          || (role != flow_role::none && role != flow_role::next_iteration
              && role != flow_role::loop_cond
              && role != flow_role::control_trigger);
      if (!forwards)
        break;
      at = data_input(u, 0);
    }
  }
  std::vector<core::device_name> names;
  for (const auto& d : devices) {
    auto parsed = core::device_name::parse(d);
    if (!parsed || !parsed->job || !parsed->task || !parsed->type
        || !parsed->id)
      return core::invalid_argument_error("device '", d,
                                          "' is not a full device name");
    names.push_back(std::move(*parsed));
  }
  auto default_spec = core::device_name::parse(default_device);
  if (!default_spec)
    return core::invalid_argument_error("malformed default device '",
                                        default_device, "'");
  // Candidates per group: devices matching every request of the group and
  // supporting every op of it.
  std::map<int, std::vector<size_t>> candidates;
  std::map<int, std::string> first_request; // for error messages
  for (size_t i = 0; i < n; ++i) {
    auto root = find_root(parent, static_cast<int>(i));
    auto [it, fresh] = candidates.try_emplace(root);
    if (fresh)
      for (size_t d = 0; d < names.size(); ++d)
        it->second.push_back(d);
    const auto& node = nodes[i];
    auto spec = core::device_name::parse(node.device);
    if (!spec)
      return core::invalid_argument_error("malformed device request '",
                                          node.device, "'")
        .with_context(node.name, node.op, node.device);
    auto& cands = it->second;
    auto has_kernel = [&](size_t d) {
      return is_runtime_op(node.op) || kernels.supports(node, *names[d].type);
    };
    std::vector<size_t> kept;
    for (auto d : cands)
      if (spec->matches(names[d]) && has_kernel(d))
        kept.push_back(d);
    bool lacks_kernel = std::any_of(cands.begin(), cands.end(), [&](size_t d) {
      return spec->matches(names[d]) && !has_kernel(d);
    });
    if (kept.empty() && spec->type && lacks_kernel) {
      // Soft placement: a request for a device type with no kernel for the
      // op (a GPU) falls back to another device of the same task.
      auto relaxed = *spec;
      relaxed.type.reset();
      relaxed.id.reset();
      for (auto d : cands)
        if (relaxed.matches(names[d]) && has_kernel(d))
          kept.push_back(d);
      if (!kept.empty())
        core::log().info("soft placement: node '{}' ({}) asked for '{}', which "
                         "has no kernel for it; placed on {}",
                         node.name, node.op, node.device,
                         devices[kept.front()]);
    }
    if (kept.empty()) {
      auto& req = first_request[root];
      std::string why;
      bool any = std::any_of(names.begin(), names.end(),
                             [&](const auto& d) { return spec->matches(d); });
      if (!node.device.empty() && !any)
        why = "no device matches the request";
      else if (!node.device.empty() && !req.empty())
        why = "it must share a device with a node requesting '" + req
              + "' (a reference edge or a TensorArray's handle joins them)";
      else
        why = "no device has a kernel for op " + node.op;
      return core::invalid_argument_error("cannot place node '", node.name,
                                          "' on '", node.device, "': ", why)
        .with_context(node.name, node.op, node.device);
    }
    cands = std::move(kept);
    if (!node.device.empty() && first_request[root].empty())
      first_request[root] = node.device;
  }
  // Choose: the default device if the group allows it, else the first one.
  for (size_t i = 0; i < n; ++i) {
    auto root = find_root(parent, static_cast<int>(i));
    const auto& cands = candidates[root];
    auto chosen = cands.front();
    for (auto d : cands)
      if (default_spec->matches(names[d])) {
        chosen = d;
        break;
      }
    if (nodes[i].device.empty() && !default_spec->matches(names[chosen])
        && default_spec->type && *default_spec->type != *names[chosen].type)
      core::log().debug("soft placement: node '{}' ({}) on {}: no {} kernel",
                        nodes[i].name, nodes[i].op, devices[chosen],
                        *default_spec->type);
    g.set_device(i, devices[chosen]);
  }
  return core::status::ok();
}

core::status place_stateful(const graph& g, const graph_types& types,
                            const ops::op_registry& ops,
                            const std::vector<std::string>& devices,
                            const ops::kernel_registry& kernels,
                            const std::string& default_device,
                            pinned_devices* out) {
  graph whole = g;
  ACTORFLOW_RETURN_IF_ERROR(
    place(whole, types, devices, kernels, default_device));
  for (const auto& node : whole.nodes()) {
    const auto* def = ops.find(node.op);
    if (def != nullptr && def->is_stateful)
      out->try_emplace(node.name, pinned_device{node.op, node.device});
  }
  return core::status::ok();
}

void pin_devices(graph& g, const pinned_devices& pinned) {
  const auto& nodes = g.nodes();
  for (size_t k = 0; k < nodes.size(); ++k) {
    auto i = pinned.find(nodes[k].name);
    if (i != pinned.end() && i->second.op == nodes[k].op)
      g.set_device(k, i->second.device);
  }
}

core::status place_replica(graph& g, const graph_types& types,
                           const std::string& ps, const std::string& worker,
                           const std::string& local_prefix) {
  auto shared = [&](const std::string& name) {
    auto i = g.index_of(name);
    return i >= 0 && g.nodes()[static_cast<size_t>(i)].op == "VariableV2"
           && (local_prefix.empty() || name.rfind(local_prefix, 0) != 0);
  };
  const auto& nodes = g.nodes();
  // A shared variable's device: the one it asks for, else the ps.
  auto home = [&](const std::string& name) {
    const auto& d = nodes[static_cast<size_t>(g.index_of(name))].device;
    return d.empty() ? ps : d;
  };
  std::vector<std::string> devices(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string with_variable = shared(nodes[i].name) ? ps : "";
    for (size_t k = 0; k < types.inputs[i].size() && with_variable.empty();
         ++k) {
      core::input_ref r;
      if (!core::input_ref::parse(nodes[i].inputs[k], &r))
        return core::invalid_argument_error("bad input '", nodes[i].inputs[k],
                                            "'")
          .with_context(nodes[i].name, nodes[i].op);
      if (types.inputs[i][k].is_ref && shared(r.node))
        with_variable = home(r.node);
    }
    devices[i] = !nodes[i].device.empty() ? nodes[i].device
                 : !with_variable.empty() ? with_variable
                                          : worker;
  }
  for (size_t i = 0; i < nodes.size(); ++i)
    g.set_device(i, std::move(devices[i]));
  return core::status::ok();
}

} // namespace actorflow::graph
