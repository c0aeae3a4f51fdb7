#include "node/node_actor.hpp"

#include <caf/send.hpp>

#include "node/node_state.hpp"
#include "transport/peer_guard.hpp"

namespace actorflow::actors {

namespace detail {

namespace {

/// Starts handling a message of the step of `t` that holds a token of
/// `tracker` (ours now), or none (`tracker` nullptr: a value from another
/// worker); in a loop frame the message's frame instance becomes the
/// current one.
void begin(self_ptr self, const tag& t, step_tracker* tracker) {
  if (tracker != nullptr) {
    self->tracker = tracker;
    self->owned = 1;
  } else {
    use_tracker(self, t.step);
    self->owned = 0;
  }
  if (self->info->frame == 0)
    return;
  if (self->current != nullptr && self->current_key.step == t.step
      && self->current_key.frame == t.frame) {
    self->current->learn(self->tracker, t.frame);
    return;
  }
  auto key = frame_key(t);
  auto i = self->instances.find(key);
  if (i == self->instances.end())
    i = self->instances
          .emplace(key, frame_instance{self->info->entries,
                                       self->info->parallel_iterations})
          .first;
  self->current = &i->second;
  self->current_key = key;
  self->current->learn(self->tracker, t.frame);
}

/// Whether a message of `step` is dropped: its step was aborted here (or,
/// for a value from another worker, which holds no token, ended here). A
/// message holding a token of `tracker` gives it back.
bool dropped(self_ptr self, uint64_t step, step_tracker* tracker) {
  if (tracker != nullptr) {
    if (!tracker->aborted.load(std::memory_order_acquire))
      return false;
    self->tracker = tracker;
    self->owned = 1;
    finish(self);
    return true;
  }
  use_tracker(self, step);
  if (self->tracker != nullptr)
    return self->tracker->aborted.load(std::memory_order_acquire);
  return self->plan->trackers->ended(step);
}

/// Drops what the hosted nodes keep for frame instance `key`: loop
/// constants, parked iterations, and the entries of tags that can no
/// longer complete.
void forget_instance(self_ptr self, const tag& key) {
  for (auto& st : self->nodes) {
    st.invariants.erase(key);
    st.complete_invariants = nullptr;
    st.parked.erase(key);
    st.pending.remove_if(
      [&key](const tag& t) {
        return t.step == key.step && t.frame == key.frame;
      },
      [](const pending_inputs&) {});
  }
}

/// After a message of the current frame instance: retires its iterations
/// that are done, lets held NextIteration values go on, and retires the
/// instance itself when nothing of it is left (in a group whose frame
/// lies on this partition alone; the others keep it until the step ends).
void advance(self_ptr self) {
  auto* inst = self->current;
  if (inst == nullptr || !inst->may_retire())
    return;
  auto& ready = self->ready;
  inst->retire(ready);
  for (auto& held : ready) {
    ++self->owned; // the token it kept
    auto& st = self->nodes[static_cast<size_t>(
      self->plan->index_in_group[static_cast<size_t>(held.node)])];
    // A NextIteration runs no kernel: its context's output slot is free.
    auto& outputs = st.ctx->outputs();
    outputs[0].value = std::move(held.value.value);
    outputs[0].ref = std::move(held.value.ref);
    const auto& t = held.tag;
    send_outputs(self, st, tag{t.step, t.frame, t.iter + 1}, held.state,
                 &outputs);
    outputs[0] = ops::entry{};
  }
  ready.clear();
  if (!inst->finished() || !inst->first_report())
    return;
  auto key = self->current_key;
  if (self->info->parent >= 0) {
    // The message holds a token, so that the step cannot end before the
    // enclosing instance has seen it.
    const auto& parent
      = self->plan->groups[static_cast<size_t>(self->info->parent)];
    take_token(self);
    caf::anon_send(
      self->plan->actors[static_cast<size_t>(parent.nodes.front())],
      frame_done_msg{key.step, inst->parent(), key.frame, self->tracker});
  }
  if (!self->info->retires)
    return;
  forget_instance(self, key);
  if (self->tracker != nullptr)
    self->tracker->drop_frame(key.frame);
  self->current = nullptr;
  self->instances.erase(key);
}

/// Hands the values between hosted nodes on until none is left, or until
/// the message's budget of hops is spent (`node_actor_impl::hops_left`): then
/// it goes on after the messages already waiting.
void drain(self_ptr self) {
  while (!self->local.empty()) {
    if (self->hops_left <= 0) {
      if (!self->drain_posted) {
        self->drain_posted = true;
        caf::anon_send(caf::actor_cast<node_actor>(self), drain_atom::value);
      }
      return;
    }
    --self->hops_left;
    auto queued = self->local.pop();
    auto& m = queued.msg;
    if (dropped(self, m.tag.step, m.tracker))
      continue;
    auto& st = self->nodes[static_cast<size_t>(
      self->plan->index_in_group[static_cast<size_t>(m.node)])];
    begin(self, m.tag, m.tracker);
    on_value(self, st, m);
    if (queued.counted)
      self->current->work_done(m.tag.iter);
    advance(self);
    finish(self);
  }
  self->hops_left = hop_budget;
}

/// Drops everything the hosted nodes keep for `step` (inputs waiting for
/// others, loop constants, parked iterations, frame instances); returns
/// how many of its tokens that state held.
int64_t forget_step(self_ptr self, uint64_t step) {
  int64_t held = 0;
  auto of_step = [step](const auto& kvp) { return kvp.first.step == step; };
  for (auto& st : self->nodes) {
    st.pending.remove_if(
      [step](const tag& t) { return t.step == step; },
      [&held](const pending_inputs& p) { held += p.held_tokens; });
    for (auto i = st.invariants.begin(); i != st.invariants.end();)
      i = of_step(*i) ? st.invariants.erase(i) : std::next(i);
    st.complete_invariants = nullptr;
    for (auto i = st.parked.begin(); i != st.parked.end();)
      i = of_step(*i) ? st.parked.erase(i) : std::next(i);
  }
  self->current = nullptr;
  for (auto i = self->instances.begin(); i != self->instances.end();)
    if (of_step(*i)) {
      held += i->second.held_values();
      i = self->instances.erase(i);
    } else {
      ++i;
    }
  return held;
}

/// Whether a value from another worker may be handled: it decoded, and it
/// names a node of this group, an input slot the node has, and no loop
/// constant. A sender of one that may not is disconnected.
bool acceptable(self_ptr self, value_msg& m) {
  const auto& plan = *self->plan;
  auto n = static_cast<size_t>(m.node);
  if (m.wire_error.is_ok()
      && !(m.node >= 0 && n < plan.nodes.size()
           && plan.group_of[n] == self->group
           && m.slot < plan.nodes[n].num_slots && m.tag.iter != invariant_iter))
    m.wire_error = core::invalid_argument_error(
      "malformed value message: node ", m.node, ", slot ", m.slot, ", step ",
      m.tag.step, " is not an input of this partition");
  return !detail::refuse_malformed(self, m.wire_error);
}

} // namespace

node_actor_impl::node_actor_impl(caf::actor_config& cfg,
                                 std::shared_ptr<partition_plan> plan_ptr,
                                 int group_index)
  : node_actor::base(cfg), plan(std::move(plan_ptr)), group(group_index) {
  info = &plan->groups[static_cast<size_t>(group)];
  const auto& members = info->nodes;
  kept = members.size() > 1 ? 1 : 0;
  nodes.resize(members.size());
  for (size_t k = 0; k < members.size(); ++k) {
    const auto& item = plan->nodes[static_cast<size_t>(members[k])];
    auto& st = nodes[k];
    st.item = &item;
    st.kind = item.kind;
    st.num_messages = item.num_messages;
    st.num_slots = item.num_slots;
    st.is_merge = item.is_merge;
    st.has_invariants = !item.invariant_slots.empty();
    st.kernel = item.kernel.get();
    if (st.kernel != nullptr) {
      st.async_kernel = st.kernel->is_async();
      st.expensive_kernel = st.kernel->is_expensive();
    }
    if (item.def.op == "Switch") {
      st.kind_of_route = route_kind::switch_value;
    } else if (item.def.op == "Merge") {
      st.kind_of_route = route_kind::merge_value;
      if (item.out.size() > 1 && !item.out[1].empty()) // read at all
        for (int32_t k = 0; k < item.num_slots; ++k)
          st.merge_index.push_back(core::tensor::scalar(k));
    }
    st.constants = item.constants;
    for (const auto& c : st.constants)
      if (c.slot < 64)
        st.constant_slots |= uint64_t{1} << c.slot;
    st.ctx.emplace(*plan->device, item.out_types, 0);
    st.ctx->set_memory(&item.memory);
  }
}

node_actor_impl::behavior_type node_actor_impl::make_behavior() {
  auto* self = this;
  return {
    [self](value_msg& m) {
      if (m.tracker == nullptr && !acceptable(self, m))
        return;
      if (dropped(self, m.tag.step, m.tracker)) {
        drain(self);
        return;
      }
      auto& st = self->nodes[static_cast<size_t>(
        self->plan->index_in_group[static_cast<size_t>(m.node)])];
      begin(self, m.tag, m.tracker);
      if (m.entry && self->current != nullptr)
        self->current->entry_arrived();
      on_value(self, st, m);
      advance(self);
      finish(self);
      drain(self);
    },
    [self](drain_atom) {
      self->drain_posted = false;
      self->hops_left = hop_budget;
      drain(self);
    },
    [self](async_done_msg m) {
      auto i = self->async.find(m.id);
      if (i == self->async.end())
        return;
      auto call = std::move(i->second);
      self->async.erase(i);
      if (dropped(self, call.tag.step, call.tracker)) {
        drain(self);
        return;
      }
      begin(self, call.tag, call.tracker); // the token the kernel held
      auto& st = self->nodes[static_cast<size_t>(call.node)];
      self->firing_start = call.times ? call.times->start_us : call.start_us;
      self->firing_end = call.times ? call.times->end_us : 0;
      self->firing_tag = call.tag;
      self->firing_bytes = 0;
      finish_kernel(self, st, call.tag, *call.ctx);
      if (call.counted)
        self->current->work_done(call.tag.iter);
      advance(self);
      finish(self);
      drain(self);
    },
    [self](frame_done_msg m) {
      if (dropped(self, m.step, m.tracker)) {
        drain(self);
        return;
      }
      self->tracker = m.tracker; // the token the message holds
      self->owned = 1;
      auto key = tag{m.step, m.parent_frame, invariant_iter};
      auto i = self->instances.find(key);
      if (i != self->instances.end()) {
        self->current = &i->second;
        self->current_key = key;
        self->current->child_done(m.frame);
        advance(self);
      }
      finish(self);
      drain(self);
    },
    [self](step_done_msg m) { forget_step(self, m.step); },
    [self](step_abort_msg m) {
      // What the step keeps here goes, and with it the tokens it holds:
      // half-arrived Recvs (their values may never come) and held
      // NextIteration values.
      auto held = forget_step(self, m.step);
      use_tracker(self, m.step);
      self->owned = held;
      finish(self);
    },
  };
}

} // namespace detail

node_actor spawn_nodes(caf::actor_system& sys,
                       std::shared_ptr<partition_plan> plan, int group) {
  return sys.spawn<detail::node_actor_impl>(std::move(plan), group);
}

} // namespace actorflow::actors
