// Collecting a node's inputs: the values of each tag until all are in
// (or, for a Merge, its first live one), loop constants per frame
// instance for every iteration; then the node fires (node/firing.cpp).

#include "node/node_state.hpp"

namespace actorflow::actors::detail {

namespace {

/// The entry of `t` in `st.pending`, started when `t` is new.
pending_inputs& pending_entry(node_state& st, const tag& t) {
  if (auto* found = st.pending.find(t); found != nullptr)
    return *found;
  auto& p = st.pending.add(t);
  p.remaining = st.num_messages;
  p.controls_left = st.item->num_control;
  p.state = value_state::live;
  p.has_live = false;
  p.fired = false;
  p.held_tokens = 0;
  p.counts_work = false;
  p.inputs.resize(static_cast<size_t>(st.num_slots));
  fill_constants(st, p.inputs);
  return p;
}

/// Merge: the first live data input fires the node once the control inputs
/// are in; the tag's entry stays until every input has arrived, so late
/// (dead) inputs are absorbed. With no live data input the Merge is dead
/// (failed if an input failed).
void on_merge_input(self_ptr self, node_state& st, value_msg& m,
                    pending_inputs& p) {
  if (m.slot < 0)
    --p.controls_left;
  else if (m.state == value_state::live && !p.has_live && !p.fired) {
    p.inputs[static_cast<size_t>(m.slot)] = std::move(m.value);
    p.has_live = true;
  } else if (m.state == value_state::failed) {
    p.state = value_state::failed;
  }
  if (!p.fired && p.has_live && p.controls_left == 0) {
    p.fired = true;
    fire(self, st, m.tag, value_state::live, p.inputs);
  }
  if (--p.remaining > 0)
    return;
  if (!p.fired)
    fire(self, st, m.tag,
         p.state == value_state::failed ? p.state : value_state::dead,
         p.inputs);
  st.pending.remove(m.tag, p);
}

/// Fills the loop-constant slots of `p` from `inv` and fires.
void fire_with_invariants(self_ptr self, node_state& st, const tag& t,
                          pending_inputs& p, const invariant_values& inv) {
  for (auto slot : st.item->invariant_slots)
    p.inputs[static_cast<size_t>(slot)] = inv.values[static_cast<size_t>(slot)];
  fire(self, st, t, combine(p.state, inv.state), p.inputs);
}

/// A node that reads loop constants fires an iteration once its frame
/// instance's constants are in, and parks it until then.
void fire_or_park(self_ptr self, node_state& st, const tag& t,
                  pending_inputs& p) {
  auto key = frame_key(t);
  if (st.complete_invariants == nullptr || !(st.complete_key == key)) {
    auto i = st.invariants.find(key);
    if (i == st.invariants.end() || i->second.missing > 0) {
      st.parked[key].emplace_back(t, std::move(p));
      return;
    }
    st.complete_invariants = &i->second;
    st.complete_key = key;
  }
  fire_with_invariants(self, st, t, p, *st.complete_invariants);
}

/// A loop constant for every iteration of a frame instance.
void on_invariant(self_ptr self, node_state& st, value_msg& m) {
  auto key = frame_key(m.tag);
  auto [it, fresh] = st.invariants.try_emplace(key);
  auto& inv = it->second;
  if (fresh) {
    inv.missing = static_cast<int>(st.item->invariant_slots.size());
    inv.values.resize(static_cast<size_t>(st.num_slots));
  }
  inv.values[static_cast<size_t>(m.slot)] = std::move(m.value);
  inv.state = combine(inv.state, m.state);
  if (--inv.missing > 0)
    return;
  auto waiting = st.parked.find(key);
  if (waiting == st.parked.end())
    return;
  auto iterations = std::move(waiting->second);
  st.parked.erase(waiting);
  for (auto& [t, p] : iterations)
    fire_with_invariants(self, st, t, p, inv);
}

} // namespace

void on_value(self_ptr self, node_state& st, value_msg& m) {
  busy_guard busy{st};
  if (m.tag.iter == invariant_iter) {
    on_invariant(self, st, m);
    return;
  }
  if (st.num_messages == 1 && !st.has_invariants) {
    // Fast path: one input, nothing to wait for; the input goes straight
    // into the kernel context.
    auto& inputs = st.ctx->inputs();
    inputs.resize(static_cast<size_t>(
      m.slot >= 0 || !st.constants.empty() ? st.num_slots : 0));
    if (m.slot >= 0)
      inputs[static_cast<size_t>(m.slot)] = std::move(m.value);
    fill_constants(st, inputs);
    fire(self, st, m.tag, m.state, inputs);
    release_inputs(st, inputs);
    return;
  }
  auto& p = pending_entry(st, m.tag);
  if (st.is_merge) {
    on_merge_input(self, st, m, p);
    return;
  }
  if (m.slot >= 0)
    p.inputs[static_cast<size_t>(m.slot)] = std::move(m.value);
  p.state = combine(p.state, m.state);
  if (--p.remaining > 0) {
    if (st.kind == node_kind::recv) {
      // Waits for a value that may come from another worker: the step
      // is not done here until it has, nor is the iteration.
      if (self->owned > 0) {
        ++p.held_tokens;
        --self->owned;
      }
      if (!p.counts_work && self->current != nullptr)
        p.counts_work = self->current->add_work(m.tag.iter);
    }
    return;
  }
  // The entry stays in the table while the node fires (the node is busy:
  // nothing it sends to comes back to it before it is done).
  self->owned += p.held_tokens;
  bool counted = p.counts_work;
  if (!st.has_invariants)
    fire(self, st, m.tag, p.state, p.inputs);
  else
    fire_or_park(self, st, m.tag, p);
  st.pending.remove(m.tag, p);
  if (counted && self->current != nullptr)
    self->current->work_done(m.tag.iter);
}

} // namespace actorflow::actors::detail
