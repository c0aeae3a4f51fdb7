#include "actorflow/actors/node_actor_impl.hpp"

#include <exception>
#include <unordered_map>

#include <caf/actor_cast.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::actors {

namespace {

/// The inputs of one tag collected so far.
struct pending_inputs {
  int remaining = 0;
  value_state state = value_state::live;
  std::vector<ops::entry> inputs;
};

/// The worse of two states: failed beats dead beats live.
value_state combine(value_state x, value_state y) {
  return static_cast<uint8_t>(x) > static_cast<uint8_t>(y) ? x : y;
}

/// The state of one node actor.
struct node_state {
  std::shared_ptr<partition_plan> plan;
  const node_item* item = nullptr;
  std::unordered_map<tag, pending_inputs, tag_hash> pending;
  /// Reused by synchronous kernels; an actor runs one message at a time.
  std::unique_ptr<ops::kernel_context> ctx;
  /// Asynchronous kernels in flight, with the tag they run for.
  std::unordered_map<uint64_t,
                     std::pair<tag, std::unique_ptr<ops::kernel_context>>>
    async;
  uint64_t next_async = 0;
  /// Input slots of the one-message fast path, reused across steps.
  std::vector<ops::entry> scratch;
};

/// The actor class of a node. A class of its own rather than a
/// `stateful_actor`: the scheduler dynamic-casts every actor it resumes, and
/// a shallower hierarchy with a short type name makes that cast cheaper.
class node_worker : public node_actor::base {
public:
  node_worker(caf::actor_config& cfg, std::shared_ptr<partition_plan> plan,
              int index);

  behavior_type make_behavior() override;

  const char* name() const override {
    return "actorflow.node";
  }

  node_state state;
};

using self_ptr = node_worker*;

/// Sends `msg` to node actor `dest` without a sender: node actors never
/// reply, and leaving the sender out spares a reference count on this
/// actor that the receiving core would otherwise have to touch. Passing our
/// execution unit keeps CAF scheduling `dest` on this worker.
void post(self_ptr self, const node_actor& dest, value_msg msg) {
  caf::actor_cast<caf::abstract_actor*>(dest)->enqueue(
    caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                              std::move(msg)),
    self->context());
}

void send_outputs(self_ptr self, const tag& t, value_state state,
                  std::vector<ops::entry>* outputs) {
  auto& st = self->state;
  const auto& item = *st.item;
  const auto& actors = st.plan->actors;
  for (size_t port = 0; port < item.out.size(); ++port) {
    const auto& edges = item.out[port];
    for (size_t k = 0; k < edges.size(); ++k) {
      ops::entry value;
      if (state == value_state::live) {
        // The last consumer takes the entry; the others share it.
        if (k + 1 == edges.size())
          value = std::move((*outputs)[port]);
        else
          value = (*outputs)[port];
      }
      post(self, actors[static_cast<size_t>(edges[k].dst)],
           value_msg{t, edges[k].slot, state, std::move(value)});
    }
  }
  for (auto dst : item.control_out)
    post(self, actors[static_cast<size_t>(dst)],
         value_msg{t, control_slot, state, {}});
}

/// Reports `err` (the node's first error in this step) to the master.
void report(self_ptr self, const tag& t, const core::status& err) {
  const auto& item = *self->state.item;
  self->send(
    self->state.plan->master,
    step_error_msg{t.step, err.with_context(item.def.name, item.def.op,
                                            self->state.plan->device_name)});
}

/// Checks a finished kernel's outputs and sends them on.
void finish_kernel(self_ptr self, const tag& t, ops::kernel_context& ctx) {
  auto st = ctx.status();
  if (st.is_ok())
    for (size_t i = 0; i < ctx.outputs().size(); ++i) {
      const auto& e = ctx.outputs()[i];
      if (!e.value.valid() && !e.ref) {
        st = core::internal_error("kernel left output ", i, " unset");
        break;
      }
      if (e.value.valid()
          && e.value.dtype() != self->state.item->out_types[i].type) {
        st = core::internal_error(
          "kernel produced a ", core::to_string(e.value.dtype()),
          " for output ", i, ", declared ",
          core::to_string(self->state.item->out_types[i].type));
        break;
      }
    }
  if (!st.is_ok()) {
    report(self, t, st);
    send_outputs(self, t, value_state::failed, nullptr);
    return;
  }
  send_outputs(self, t, value_state::live, &ctx.outputs());
}

/// Prepares the inputs: a reference feeding an input that expects a value
/// is read now (and fails if the variable is uninitialised).
core::status prepare_inputs(const node_item& item,
                            std::vector<ops::entry>& inputs) {
  for (size_t i = 0; i < inputs.size() && i < item.in_types.size(); ++i) {
    auto& e = inputs[i];
    if (!item.in_types[i].is_ref && e.ref) {
      core::tensor value;
      ACTORFLOW_RETURN_IF_ERROR(e.ref->read(&value));
      e = ops::entry{std::move(value), nullptr};
    }
  }
  return core::status::ok();
}

void run_kernel(self_ptr self, const tag& t, std::vector<ops::entry>& inputs) {
  auto& st = self->state;
  const auto& item = *st.item;
  auto prep = prepare_inputs(item, inputs);
  if (!prep.is_ok()) {
    report(self, t, prep);
    send_outputs(self, t, value_state::failed, nullptr);
    return;
  }
  auto& kernel = *item.kernel;
  if (kernel.is_async()) {
    auto id = st.next_async++;
    auto ctx = std::make_unique<ops::kernel_context>(*st.plan->device,
                                                     item.out_types, t.step);
    ctx->inputs() = std::move(inputs);
    auto* raw = ctx.get();
    st.async.emplace(id, std::make_pair(t, std::move(ctx)));
    auto handle = caf::actor_cast<node_actor>(self);
    try {
      kernel.compute_async(
        *raw, [handle, id] { caf::anon_send(handle, async_done_msg{id}); });
    } catch (const std::exception& e) {
      raw->fail(core::internal_error("kernel threw: ", e.what()));
      caf::anon_send(handle, async_done_msg{id});
    }
    return;
  }
  auto& ctx = *st.ctx;
  ctx.reset(t.step);
  ctx.inputs().swap(inputs); // keeps both buffers: no allocation per step
  try {
    kernel.compute(ctx);
  } catch (const std::exception& e) {
    ctx.fail(core::internal_error("kernel threw: ", e.what()));
  } catch (...) {
    ctx.fail(core::internal_error("kernel threw a non-standard exception"));
  }
  finish_kernel(self, t, ctx);
}

/// Runs the node for tag `t` once every input has arrived.
void fire(self_ptr self, const tag& t, value_state state,
          std::vector<ops::entry>& inputs) {
  auto& st = self->state;
  const auto& item = *st.item;
  switch (item.kind) {
    case node_kind::kernel:
      if (state == value_state::live)
        run_kernel(self, t, inputs);
      else
        send_outputs(self, t, state, nullptr);
      return;
    case node_kind::feed:
    case node_kind::recv: send_outputs(self, t, state, &inputs); return;
    case node_kind::send: {
      ops::entry value;
      if (state == value_state::live) {
        core::tensor v;
        auto rd = inputs[0].read(&v);
        if (!rd.is_ok()) {
          report(self, t, rd);
          state = value_state::failed;
        } else {
          value.value = std::move(v);
        }
      }
      post(self, item.send_target, value_msg{t, 0, state, std::move(value)});
      send_outputs(self, t, state, nullptr);
      return;
    }
    case node_kind::fetch: {
      core::tensor v;
      if (state == value_state::live) {
        auto rd = inputs[0].read(&v);
        if (!rd.is_ok()) {
          report(self, t, rd);
          state = value_state::failed;
        }
      }
      self->send(st.plan->master,
                 fetch_msg{t.step, item.index_attr, state, std::move(v)});
      send_outputs(self, t, state, nullptr);
      return;
    }
    case node_kind::sink:
      self->send(st.plan->master, partition_done_msg{t.step});
      return;
  }
}

void on_value(self_ptr self, value_msg& m) {
  auto& st = self->state;
  const auto& item = *st.item;
  if (item.num_messages == 1) {
    // Fast path: one input, nothing to wait for.
    auto& inputs = st.scratch;
    inputs.resize(static_cast<size_t>(m.slot >= 0 ? item.num_slots : 0));
    if (m.slot >= 0)
      inputs[static_cast<size_t>(m.slot)] = std::move(m.value);
    fire(self, m.tag, m.state, inputs);
    inputs.clear();
    return;
  }
  auto [it, fresh] = st.pending.try_emplace(m.tag);
  auto& p = it->second;
  if (fresh) {
    p.remaining = item.num_messages;
    p.inputs.resize(static_cast<size_t>(item.num_slots));
  }
  if (m.slot >= 0)
    p.inputs[static_cast<size_t>(m.slot)] = std::move(m.value);
  p.state = combine(p.state, m.state);
  if (--p.remaining > 0)
    return;
  auto done = std::move(p);
  st.pending.erase(it);
  fire(self, m.tag, done.state, done.inputs);
}

node_worker::node_worker(caf::actor_config& cfg,
                         std::shared_ptr<partition_plan> plan, int index)
  : node_actor::base(cfg) {
  state.item = &plan->nodes[static_cast<size_t>(index)];
  state.ctx = std::make_unique<ops::kernel_context>(*plan->device,
                                                    state.item->out_types, 0);
  state.plan = std::move(plan);
}

node_worker::behavior_type node_worker::make_behavior() {
  auto* self = this;
  return {
    [self](value_msg& m) { on_value(self, m); },
    [self](async_done_msg m) {
      auto i = self->state.async.find(m.id);
      if (i == self->state.async.end())
        return;
      auto t = i->second.first;
      auto ctx = std::move(i->second.second);
      self->state.async.erase(i);
      finish_kernel(self, t, *ctx);
    },
  };
}

} // namespace

node_actor spawn_node(caf::actor_system& sys,
                      std::shared_ptr<partition_plan> plan, int index) {
  return sys.spawn<node_worker>(std::move(plan), index);
}

} // namespace actorflow::actors
