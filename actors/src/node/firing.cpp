// Running a node once its inputs are in (node/inputs.cpp collects them):
// the plumbing of control flow by its kind, a kernel through
// node/kernel.cpp, and its outputs handed on -- straight to a consumer
// hosted by the same actor, through its queue, or as a message.

#include "node/node_state.hpp"

#include <algorithm>

#include <caf/send.hpp>

#include "transport/bulk_transport.hpp"

namespace actorflow::actors::detail {

namespace {

/// Builds the flat out-edge list from the plan.
void flatten_edges(self_ptr self, node_state& st) {
  const auto& item = *st.item;
  const auto& plan = *self->plan;
  auto edge = [&](int dst, int32_t port, int32_t slot) {
    auto i = static_cast<size_t>(dst);
    node_actor handle;
    bool direct = false;
    bool to_exit = false;
    if (plan.group_of[i] != self->group) {
      handle = plan.actors[i];
    } else {
      // A Recv holds the token of each message it waits with: its values
      // keep going through the queue, which gives them one.
      direct = plan.nodes[i].kind != node_kind::recv;
      to_exit = plan.nodes[i].kind == node_kind::exit;
    }
    st.edges.push_back(
      out_edge{std::move(handle), dst, port, slot, direct, to_exit});
  };
  for (size_t port = 0; port < item.out.size(); ++port)
    for (const auto& e : item.out[port])
      edge(e.dst, static_cast<int32_t>(port), e.slot);
  for (auto dst : item.control_out)
    edge(dst, -1, control_slot);
  st.queued_edges = std::count_if(st.edges.begin(), st.edges.end(),
                                  [](const out_edge& e) { return !e.direct; });
  st.edges_flat = true;
}

/// How deep values are handed over directly, one firing inside another,
/// before they go through the local queue again.
constexpr int max_direct_depth = 8;

/// Sends along edge `e`. A consumer hosted here takes the value at once
/// (with its tag's other inputs; it fires if they are all in, as
/// TensorFlow's executor runs a ready node inline): no queue, no token, no
/// frame bookkeeping per hop -- unless the consumer is busy further up the
/// stack, the chain of direct hand-overs is already deep, the message's
/// budget of hops is spent, or a traced firing has not been recorded.
void post(self_ptr self, const out_edge& e, value_msg&& msg) {
  if (e.direct && self->direct_depth < max_direct_depth && self->hops_left > 0
      && self->firing_start == 0) {
    auto& st = self->nodes[static_cast<size_t>(
      self->plan->index_in_group[static_cast<size_t>(e.node)])];
    if (!st.busy) {
      --self->hops_left;
      ++self->direct_depth;
      on_value(self, st, msg);
      --self->direct_depth;
      return;
    }
  }
  take_token(self);
  msg.node = e.node;
  msg.tracker = self->tracker;
  if (e.dst)
    enqueue(self, e.dst, std::move(msg));
  else
    push_local(self, std::move(msg));
}

/// The record of the frame of `t` kept by its instance, if that is the
/// current one (`begin` made it so for the message being handled) and has
/// learnt it; nullptr otherwise.
const frame_ref* current_record(self_ptr self, const tag& t) {
  return self->current != nullptr && self->current_key.step == t.step
             && self->current_key.frame == t.frame
           ? self->current->record()
           : nullptr;
}

/// Whether the frame of `t` is known not to have been entered dead: its
/// Exits drop dead values (see `fire_node`), which so need not reach them
/// -- two per iteration of a loop, whose Switches send their untaken port
/// to its Exits.
bool live_frame(self_ptr self, const tag& t) {
  const auto* record = current_record(self, t);
  return record != nullptr && !record->dead;
}

} // namespace

void send_outputs(self_ptr self, node_state& st, const tag& t,
                  value_state state, std::vector<ops::entry>* outputs) {
  if (self->firing_start != 0)
    record_firing(self, st);
  if (!st.edges_flat)
    flatten_edges(self, st);
  busy_guard busy{st};
  const auto& edges = st.edges;
  reserve(self, st.queued_edges + self->kept);
  for (size_t k = 0; k < edges.size(); ++k) {
    const auto& e = edges[k];
    ops::entry value;
    auto edge_state = state;
    if (state == value_state::live && e.port >= 0) {
      auto& out = (*outputs)[static_cast<size_t>(e.port)];
      // An output left unset (a Switch's untaken port) is dead.
      if (!out.value.valid() && !out.ref)
        edge_state = value_state::dead;
      // The last consumer of a port takes the entry; the others share it.
      else if (k + 1 == edges.size() || edges[k + 1].port != e.port)
        value = std::move(out);
      else
        value = out;
    }
    if (edge_state == value_state::dead && e.to_exit && live_frame(self, t))
      continue; // the Exit would drop it
    value_msg msg{t, e.slot, edge_state, std::move(value)};
    msg.entry = st.kind == node_kind::enter;
    post(self, e, std::move(msg));
  }
}

namespace {

/// Names `err` after the node a fetch node reads (it is on the fetch's
/// device, so in this partition), as the user knows it.
core::status named_after_fetched(self_ptr self, const node_item& fetch,
                                 const core::status& err) {
  core::input_ref ref;
  if (fetch.def.inputs.empty()
      || !core::input_ref::parse(fetch.def.inputs[0], &ref))
    return err;
  for (const auto& item : self->plan->nodes)
    if (item.def.name == ref.node)
      return err.with_context(item.def.name, item.def.op);
  return err.with_context(ref.node, "");
}

} // namespace

void report(self_ptr self, const node_state& st, const tag& t,
            const core::status& err) {
  const auto& item = *st.item;
  self->send(self->plan->sink,
             step_error_msg{t.step, err.with_context(item.def.name, item.def.op,
                                                     self->plan->device_name)});
}

void record_firing(self_ptr self, const node_state& st) {
  if (auto* stats = collector(self); stats != nullptr) {
    const auto& t = self->firing_tag;
    stats->record(
      self->plan.get(),
      self->info->nodes[static_cast<size_t>(&st - self->nodes.data())], t.frame,
      t.iter, self->firing_start,
      self->firing_end != 0 ? self->firing_end : now_micros(),
      self->firing_bytes);
  }
  self->firing_start = 0;
  self->firing_end = 0;
}

namespace {

/// A Switch with a failed input routes the failure like a value: to the
/// port its predicate picks (port 0 if the predicate itself failed), dead
/// to the other. Inside a loop the failure so follows the iterations and
/// leaves through the Exit when the loop ends.
void switch_failed(self_ptr self, node_state& st, const tag& t,
                   const std::vector<ops::entry>& inputs) {
  const auto& pred = inputs[1].value;
  int32_t port = pred.valid() && pred.scalar_value<bool>() ? 1 : 0;
  if (!st.edges_flat)
    flatten_edges(self, st);
  busy_guard busy{st};
  reserve(self, st.queued_edges + self->kept);
  for (const auto& e : st.edges)
    post(self, e,
         value_msg{t,
                   e.slot,
                   e.port == port || e.port < 0 ? value_state::failed
                                                : value_state::dead,
                   {}});
}

/// Sends a NextIteration's value into the next iteration, or holds it while
/// `parallel_iterations` iterations of its frame instance are in flight.
void next_iteration(self_ptr self, node_state& st, const tag& t,
                    value_state state, std::vector<ops::entry>& inputs) {
  if (self->current != nullptr && !self->current->may_enter(t.iter + 1)) {
    // A held value keeps a token: the step cannot end while it waits.
    take_token(self);
    self->current->hold(frame_instance::held_value{
      self->info->nodes[static_cast<size_t>(&st - self->nodes.data())], t,
      state, std::move(inputs[0])});
    return;
  }
  send_outputs(self, st, tag{t.step, t.frame, t.iter + 1}, state, &inputs);
}

/// The id of the child frame `name_hash` entered from iteration `iter` of
/// frame `parent`: a pure function, so every partition computes the same.
uint64_t child_frame(uint64_t parent, int64_t iter, uint64_t name_hash) {
  auto mix = [](uint64_t h, uint64_t x) {
    h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
  };
  return mix(mix(mix(0x51ED27ull, parent), static_cast<uint64_t>(iter)),
             name_hash);
}

/// Switch and Merge with plain values (no variable references), routed
/// here rather than by their kernels: a Switch sends its input to the port
/// its predicate picks (the other is dead), a Merge its live input and
/// that input's index. The same outputs as the kernels', without a kernel
/// context per firing: a loop runs two Merges and two Switches per
/// iteration, and a cond in it two more Switches and a Merge. Returns
/// false, routing nothing, where the kernel must run (a reference, or a
/// predicate that is not a boolean scalar: the kernel reports it).
bool route(self_ptr self, node_state& st, const tag& t,
           std::vector<ops::entry>& inputs) {
  auto& outputs = st.ctx->outputs();
  if (st.kind_of_route == route_kind::switch_value) {
    const auto& pred = inputs[1];
    if (inputs[0].ref || pred.ref || !pred.value.valid()
        || pred.value.dtype() != core::dtype::bool_
        || pred.value.shape().rank() != 0)
      return false;
    auto port = pred.value.scalar_value<bool>() ? 1 : 0;
    outputs[static_cast<size_t>(port)].value = std::move(inputs[0].value);
  } else {
    size_t live = 0;
    while (live < inputs.size() && !inputs[live].value.valid())
      ++live;
    if (live == inputs.size() || inputs[live].ref)
      return false;
    outputs[0].value = std::move(inputs[live].value);
    if (!st.merge_index.empty())
      outputs[1].value = st.merge_index[live];
  }
  send_outputs(self, st, t, value_state::live, &outputs);
  for (auto& out : outputs)
    if (out.value.valid())
      out.value = core::tensor{};
  return true;
}

/// Runs the node for tag `t` once every input has arrived.
void fire_node(self_ptr self, node_state& st, const tag& t, value_state state,
               std::vector<ops::entry>& inputs) {
  const auto& item = *st.item;
  if (state == value_state::dead && item.is_control_trigger)
    state = value_state::live;
  switch (st.kind) {
    case node_kind::kernel:
      if (state == value_state::live) {
        if (st.kind_of_route == route_kind::none || !route(self, st, t, inputs))
          run_kernel(self, st, t, inputs);
      } else if (state == value_state::failed && item.unset_outputs_dead) {
        switch_failed(self, st, t, inputs);
      } else {
        send_outputs(self, st, t, state, nullptr);
      }
      return;
    case node_kind::feed:
    case node_kind::recv:
      if (self->firing_start != 0 && !inputs.empty() && inputs[0].value.valid())
        self->firing_bytes = static_cast<int64_t>(inputs[0].value.bytes());
      send_outputs(self, st, t, state, &inputs);
      return;
    case node_kind::send: {
      ops::entry value;
      if (state == value_state::live) {
        core::tensor v;
        auto rd = inputs[0].read(&v);
        if (!rd.is_ok()) {
          report(self, st, t, rd);
          state = value_state::failed;
        } else {
          value.value = std::move(v);
        }
      }
      if (auto* stats = collector(self);
          stats != nullptr && value.value.valid()) {
        self->firing_bytes = static_cast<int64_t>(value.value.bytes());
        stats->count_transfer(item.send_remote, self->firing_bytes);
      }
      if (self->firing_start != 0)
        record_firing(self, st);
      value_msg m{t, 0, state, std::move(value), item.send_target_node};
      if (!item.send_remote) { // the Recv's worker counts its own work
        take_token(self);
        m.tracker = self->tracker;
      }
      bool bulk = !item.bulk_address.empty() && self->plan->bulk->wants(m);
      if (item.peer != nullptr && m.value.value.valid()) {
        auto bytes = static_cast<uint64_t>(m.value.value.bytes());
        auto& p = *item.peer;
        (bulk ? p.bulk_values : p.caf_values)
          .fetch_add(1, std::memory_order_relaxed);
        (bulk ? p.bulk_bytes : p.caf_bytes)
          .fetch_add(bytes, std::memory_order_relaxed);
      }
      if (bulk)
        self->plan->bulk->send(item.bulk_address, item.bulk_key, std::move(m),
                               item.send_target);
      else
        enqueue(self, item.send_target, std::move(m));
      send_outputs(self, st, t, state, nullptr);
      return;
    }
    case node_kind::fetch: {
      core::tensor v;
      if (state == value_state::live) {
        auto rd = inputs[0].read(&v);
        if (!rd.is_ok()) {
          // Named after the fetched node (a variable not initialised, say),
          // not the internal fetch node.
          report(self, st, t, named_after_fetched(self, item, rd));
          state = value_state::failed;
        }
      }
      self->send(self->plan->sink,
                 fetch_msg{t.step, item.index_attr, state, std::move(v)});
      send_outputs(self, st, t, state, nullptr);
      return;
    }
    case node_kind::enter: {
      auto id = child_frame(t.frame, t.iter, item.frame_hash);
      if (self->current != nullptr) // waits for the child it creates
        self->current->add_child(id, t.iter);
      if (self->tracker != nullptr)
        self->tracker->enter_frame(
          frame_ref{id, t.frame, t.iter, state == value_state::dead});
      tag out{t.step, id, item.is_constant_enter ? invariant_iter : 0};
      send_outputs(self, st, out, state, &inputs);
      return;
    }
    case node_kind::exit: {
      // A dead Exit of a live loop belongs to an iteration that went on;
      // only a loop entered dead (an untaken branch) exits dead. The
      // frame's record: the instance's copy, else the worker's.
      frame_ref frame;
      bool known = false;
      if (const auto* record = current_record(self, t); record != nullptr) {
        frame = *record;
        known = true;
      } else {
        known = self->tracker != nullptr
                && self->tracker->find_frame(t.frame, &frame);
      }
      if (state == value_state::dead && !(known && frame.dead))
        return;
      tag out{t.step, known ? frame.parent : 0, known ? frame.parent_iter : 0};
      send_outputs(self, st, out, state, &inputs);
      return;
    }
    case node_kind::next_iteration:
      // Dead values end the loop here; failed ones go on, so that the
      // loop's Exit reports the failure when the loop ends.
      if (state != value_state::dead)
        next_iteration(self, st, t, state, inputs);
      return;
  }
}

} // namespace

void fire(self_ptr self, node_state& st, const tag& t, value_state state,
          std::vector<ops::entry>& inputs) {
  if (state != value_state::live || collector(self) == nullptr) {
    fire_node(self, st, t, state, inputs);
    return;
  }
  begin_firing(self, t);
  fire_node(self, st, t, state, inputs);
  // A firing that sent nothing (a held NextIteration) still holds its
  // token here.
  if (self->firing_start != 0)
    record_firing(self, st);
}

} // namespace actorflow::actors::detail
