#include "worker/partition_plan.hpp"

#include <algorithm>
#include <map>

#include <caf/send.hpp>

#include "actorflow/ops/kernel_construction.hpp"
#include "actorflow/ops/registration.hpp"
#include "compile/control_flow_info.hpp"
#include "transport/bulk_transport.hpp"
#include "worker/idle_nodes.hpp"
#include "worker/task_of.hpp"

namespace actorflow::actors {

namespace {

node_kind kind_of(const std::string& op, graph::flow_role role) {
  if (op == ops::runtime_op::feed)
    return node_kind::feed;
  if (op == ops::runtime_op::fetch)
    return node_kind::fetch;
  if (op == ops::runtime_op::send)
    return node_kind::send;
  if (op == ops::runtime_op::recv)
    return node_kind::recv;
  switch (role) {
    case graph::flow_role::enter: return node_kind::enter;
    case graph::flow_role::exit: return node_kind::exit;
    case graph::flow_role::next_iteration: return node_kind::next_iteration;
    default: return node_kind::kernel;
  }
}

/// FNV-1a: a hash of frame names that every process and machine computes
/// alike (std::hash need not).
uint64_t fnv1a(const std::string& x) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : x) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

/// A Const without inputs: its consumers hold its value (bound), no
/// message.
bool is_constant(const node_item& x) {
  return x.kind == node_kind::kernel && x.def.op == "Const"
         && x.def.inputs.empty();
}

/// A Const inside a loop frame (`frame` != 0) with only control inputs:
/// anchored to the loop's pivot so that it runs once per iteration.
bool is_anchored_constant(const node_item& x, int frame) {
  return x.kind == node_kind::kernel && x.def.op == "Const" && frame != 0
         && !x.def.inputs.empty()
         && std::all_of(x.def.inputs.begin(), x.def.inputs.end(),
                        core::is_control_input);
}

/// Makes the item of every node of `g` (`types` its dtypes): its kind,
/// slots and messages to wait for, and for a kernel node its kernel (attrs
/// are checked here, once). Recvs without inputs are roots.
core::status make_items(partition_plan& plan, const graph::graph& g,
                        const graph::graph_types& types,
                        const graph::graph_index& index, runtime_context& rt) {
  auto n = g.size();
  plan.nodes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    auto& item = plan.nodes[i];
    item.def = g.nodes()[i];
    item.kind = kind_of(item.def.op, index.role(i));
    item.in_types = types.inputs[i];
    item.out_types = types.outputs[i];
    item.out.resize(item.out_types.size());
    item.num_slots
      = item.kind == node_kind::recv || item.kind == node_kind::feed
          ? 1
          : static_cast<int>(item.in_types.size());
    if (item.kind == node_kind::enter) {
      item.frame_hash
        = fnv1a(std::get<std::string>(item.def.attrs.at("frame_name")));
      item.is_constant_enter = std::get<bool>(item.def.attrs.at("is_constant"));
    }
    // A Recv waits for its activation (a root's from the worker, or its
    // control inputs') and for the value its Send forwards: holding the
    // activation's token, it is outstanding work of the step until the
    // value is in, wherever the value comes from.
    item.num_messages = static_cast<int>(item.def.inputs.size())
                        + (item.kind == node_kind::recv ? 1 : 0);
    if (item.kind == node_kind::recv && item.def.inputs.empty()) {
      item.num_messages = 2;
      plan.roots.push_back(static_cast<int>(i));
    }
    item.is_merge = index.role(i) == graph::flow_role::merge;
    item.is_control_trigger
      = index.role(i) == graph::flow_role::control_trigger;
    item.unset_outputs_dead = index.role(i) == graph::flow_role::switch_node;
    if (item.kind == node_kind::feed || item.kind == node_kind::fetch)
      item.index_attr
        = static_cast<int32_t>(std::get<int64_t>(item.def.attrs.at("index")));
    if (item.kind == node_kind::kernel) {
      const auto* op = rt.ops().find(item.def.op);
      ops::kernel_construction ctx{item.def,      *op,
                                   *plan.device,  rt.resources(),
                                   item.in_types, item.out_types};
      auto st = rt.kernels().create(ctx, &item.kernel);
      item.memory = rt.kernels().memory(item.def, plan.device->type());
      if (!st.is_ok())
        return st.with_context(item.def.name, item.def.op, plan.device_name);
    }
  }
  return core::status::ok();
}

/// Out-edges, from the inputs of each consumer. A data edge from a Const
/// without inputs is bound instead: the consumer gets the value with no
/// message (each consumer its own handle on the shared buffer, so no
/// reference count is shared between cores).
///
/// A Const inside a loop with only control inputs (anchored to the loop's
/// pivot so that it runs once per iteration) is bound too when its
/// consumer has another input that arrives per tag: that input already
/// carries the iteration and the deadness, and the Const need not run at
/// all. (In the root frame a control input on a Const may order it after
/// a side effect, so it keeps its messages there.)
core::status connect_nodes(partition_plan& plan,
                           const graph::graph_index& index,
                           const graph::control_flow_info& info) {
  auto n = plan.nodes.size();
  auto anchored = [&](size_t i) {
    return is_anchored_constant(plan.nodes[i], info.node_frame[i]);
  };
  std::vector<int> anchored_uses(n, 0); // message edges an anchored Const keeps
  for (size_t i = 0; i < n; ++i) {
    auto& dst = plan.nodes[i];
    // Whether some input arrives as a message per tag.
    bool has_messages = false;
    for (const auto& e : index.inputs(i)) {
      const auto& src = plan.nodes[static_cast<size_t>(e.src)];
      has_messages
        = has_messages
          || (!is_constant(src) && !anchored(static_cast<size_t>(e.src))
              && !src.is_constant_enter);
    }
    int32_t slot = 0;
    for (const auto& e : index.inputs(i)) {
      auto j = static_cast<size_t>(e.src);
      auto& src = plan.nodes[j];
      bool bind = is_constant(src) || (has_messages && anchored(j));
      if (e.control()) {
        src.control_out.push_back(static_cast<int>(i));
        ++dst.num_control;
        if (anchored(j))
          ++anchored_uses[j];
      } else if (bind) {
        core::tensor own;
        const auto& value = std::get<core::tensor>(src.def.attrs.at("value"));
        ACTORFLOW_RETURN_IF_ERROR(value.reshaped(value.shape(), &own));
        dst.constants.push_back(node_item::bound_input{slot++, std::move(own)});
        --dst.num_messages;
      } else {
        if (src.is_constant_enter) {
          dst.invariant_slots.push_back(slot);
          --dst.num_messages;
        }
        if (anchored(j))
          ++anchored_uses[j];
        src.out[static_cast<size_t>(e.port)].push_back(
          node_item::edge{static_cast<int>(i), slot++});
      }
    }
    // A loop Merge gets one data input per iteration: from its Enter in
    // iteration 0, from its NextIteration after.
    if (dst.is_merge)
      for (const auto& e : index.inputs(i)) {
        if (!e.control()
            && plan.nodes[static_cast<size_t>(e.src)].kind
                 == node_kind::next_iteration)
          dst.num_messages = 1 + dst.num_control;
      }
  }
  // An anchored Const that every consumer bound never runs: its pivots stop
  // activating it.
  for (size_t i = 0; i < n; ++i)
    if (anchored(i) && anchored_uses[i] == 0)
      for (const auto& e : index.inputs(i)) {
        auto& cut = plan.nodes[static_cast<size_t>(e.src)].control_out;
        cut.erase(std::remove(cut.begin(), cut.end(), static_cast<int>(i)),
                  cut.end());
      }
  return core::status::ok();
}

/// Gives an activation to every node that waits for no message (no
/// inputs here, or only bound ones), but for Consts nothing reads; a node
/// that reads only loop constants cannot be activated per iteration and
/// is an error.
core::status find_roots(partition_plan& plan) {
  auto n = plan.nodes.size();
  for (size_t i = 0; i < n; ++i) {
    auto& item = plan.nodes[i];
    if (item.skipped)
      continue;
    bool unused_constant
      = is_constant(item) && item.control_out.empty()
        && std::all_of(item.out.begin(), item.out.end(),
                       [](const auto& es) { return es.empty(); });
    if (!item.invariant_slots.empty()) {
      if (item.num_messages == 0)
        return core::invalid_argument_error(
                 "node '", item.def.name,
                 "' reads only loop constants; give it a control input from "
                 "its loop (while_loop anchors such nodes to the loop's "
                 "pivot)")
          .with_context(item.def.name, item.def.op, plan.device_name);
    }
    if (item.num_messages == 0 && !unused_constant) {
      item.num_messages = 1; // the activation
      plan.roots.push_back(static_cast<int>(i));
    }
  }
  return core::status::ok();
}

/// Groups the nodes, a node of the root frame alone and the nodes of a
/// loop frame together, and works out which groups retire their frame
/// instances and what the Enters send into each per instance.
void group_nodes(partition_plan& plan, const graph::control_flow_info& info) {
  auto n = plan.nodes.size();
  std::map<int, int> frame_groups;
  plan.group_of.resize(n);
  plan.index_in_group.resize(n);
  for (size_t i = 0; i < n; ++i) {
    auto frame = info.node_frame[i];
    auto group = static_cast<int>(plan.groups.size());
    if (frame != 0)
      group = frame_groups.try_emplace(frame, group).first->second;
    if (group == static_cast<int>(plan.groups.size())) {
      plan.groups.emplace_back();
      plan.groups.back().frame = frame;
      plan.groups.back().retires = frame != 0;
      plan.groups.back().parallel_iterations
        = info.frames[static_cast<size_t>(frame)].parallel_iterations;
      if (frame != 0)
        plan.groups.back().frame_name
          = info.frames[static_cast<size_t>(frame)].name;
    }
    auto& g = plan.groups[static_cast<size_t>(group)];
    plan.group_of[i] = group;
    plan.index_in_group[i] = static_cast<int>(g.nodes.size());
    g.nodes.push_back(static_cast<int>(i));
    auto kind = plan.nodes[i].kind;
    if (kind == node_kind::send || kind == node_kind::recv)
      g.retires = false;
  }
  for (auto& g : plan.groups)
    if (g.frame != 0) {
      auto parent = info.frames[static_cast<size_t>(g.frame)].parent;
      auto i = frame_groups.find(parent);
      if (i != frame_groups.end())
        g.parent = i->second;
      else if (parent != 0)
        g.retires = false; // its Enters are elsewhere (and so are Recvs)
    }
  // A frame whose nested frame cannot retire its instances cannot either:
  // it would free what a child instance still reads. (Frames are numbered
  // parents first.)
  std::vector<size_t> by_frame(plan.groups.size());
  for (size_t g = 0; g < by_frame.size(); ++g)
    by_frame[g] = g;
  std::sort(by_frame.begin(), by_frame.end(), [&](size_t x, size_t y) {
    return plan.groups[x].frame > plan.groups[y].frame;
  });
  for (auto g : by_frame) {
    const auto& group = plan.groups[g];
    if (!group.retires && group.parent >= 0)
      plan.groups[static_cast<size_t>(group.parent)].retires = false;
  }
  // What the Enters of each frame send into it per frame instance.
  for (size_t i = 0; i < n; ++i) {
    const auto& item = plan.nodes[i];
    if (item.kind != node_kind::enter)
      continue;
    int64_t messages = static_cast<int64_t>(item.control_out.size());
    int target = item.control_out.empty() ? -1 : item.control_out.front();
    for (const auto& port : item.out) {
      messages += static_cast<int64_t>(port.size());
      if (!port.empty())
        target = port.front().dst;
    }
    if (target >= 0)
      plan
        .groups[static_cast<size_t>(plan.group_of[static_cast<size_t>(target)])]
        .entries
        += messages;
  }
}

} // namespace

core::status partition_plan::build(
  const graph::graph& g, const graph::graph_types& types, runtime_context& rt,
  worker_sink_actor sink,
  const std::function<node_actor(std::shared_ptr<partition_plan>, int)>& spawn,
  std::shared_ptr<partition_plan>* out) {
  auto plan = std::make_shared<partition_plan>();
  plan->sink = std::move(sink);
  if (g.size() == 0)
    return core::internal_error("empty partition");
  plan->device_name = g.nodes().front().device;
  plan->device = rt.devices().find(plan->device_name);
  if (plan->device == nullptr)
    return core::internal_error("partition on unknown device '",
                                plan->device_name, "'");
  auto edges = g.edges();
  const auto& index = *edges;
  graph::control_flow_info info;
  ACTORFLOW_RETURN_IF_ERROR(graph::build_control_flow_info(g, index, &info));
  ACTORFLOW_RETURN_IF_ERROR(make_items(*plan, g, types, index, rt));
  ACTORFLOW_RETURN_IF_ERROR(connect_nodes(*plan, index, info));
  detail::skip_idle_nodes(*plan, index, rt.ops());
  ACTORFLOW_RETURN_IF_ERROR(find_roots(*plan));
  group_nodes(*plan, info);
  std::vector<node_actor> group_actors;
  for (size_t g = 0; g < plan->groups.size(); ++g) {
    group_actors.push_back(spawn(plan, static_cast<int>(g)));
    if (plan->groups[g].frame != 0)
      plan->step_state_actors.push_back(group_actors.back());
  }
  for (size_t i = 0; i < plan->nodes.size(); ++i)
    plan->actors.push_back(
      group_actors[static_cast<size_t>(plan->group_of[i])]);
  *out = std::move(plan);
  return core::status::ok();
}

void partition_plan::list_recvs(recv_table* out) {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == node_kind::recv) {
      recv_entry r{std::get<std::string>(nodes[i].def.attrs.at("tensor_name")),
                   caf::actor_cast<caf::strong_actor_ptr>(actors[i]),
                   static_cast<int32_t>(i),
                   {},
                   0};
      if (bulk) {
        r.bulk_address = bulk->address();
        r.bulk_key = bulk->add_route(actors[i]);
        bulk_keys.push_back(r.bulk_key);
      }
      out->push_back(std::move(r));
    }
}

core::status partition_plan::route_sends(const recv_table& recvs,
                                         const caf::node_id& here) {
  std::map<std::string_view, const recv_entry*> by_name;
  for (const auto& r : recvs)
    by_name.emplace(r.tensor_name, &r);
  for (auto& item : nodes)
    if (item.kind == node_kind::send) {
      const auto& name
        = std::get<std::string>(item.def.attrs.at("tensor_name"));
      auto i = by_name.find(name);
      if (i == by_name.end() || !i->second->actor)
        return core::internal_error("no Recv for tensor '", name, "'")
          .with_context(item.def.name, item.def.op, device_name);
      item.send_target = recv_actor(*i->second);
      item.send_target_node = i->second->node;
      item.send_remote = item.send_target.node() != here;
      if (item.send_remote && context)
        item.peer = &context->counters()->peer(detail::task_of(
          std::get<std::string>(item.def.attrs.at("recv_device"))));
      if (item.send_remote && bulk) {
        item.bulk_address = i->second->bulk_address;
        item.bulk_key = i->second->bulk_key;
      }
    }
  return core::status::ok();
}

void partition_plan::abort_step(uint64_t step) const {
  for (size_t i = 0; i < nodes.size() && i < actors.size(); ++i)
    if (index_in_group[i] == 0)
      caf::anon_send(actors[i], step_abort_msg{step});
}

void partition_plan::shutdown() {
  if (bulk)
    for (auto key : bulk_keys)
      bulk->remove_route(key);
  bulk_keys.clear();
  for (size_t i = 0; i < nodes.size() && i < actors.size(); ++i)
    if (index_in_group[i] == 0)
      caf::anon_send_exit(actors[i], caf::exit_reason::user_shutdown);
}

} // namespace actorflow::actors
