#pragma once

// The actor of a group of nodes and what its parts share:
// node/node_actor.cpp handles its messages -- tokens, loop frame
// instances, aborted and ended steps --, node/inputs.cpp collects a node's
// inputs per tag, node/firing.cpp runs a node once its inputs are in and
// sends its outputs on (node/kernel.cpp: its kernel).

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include <caf/actor_cast.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actorflow/ops/kernel_context.hpp"
#include "node/local_queue.hpp"
#include "node/pending_table.hpp"
#include "step_stats_collector.hpp"
#include "worker/frame_instance.hpp"
#include "worker/partition_plan.hpp"

namespace actorflow::actors::detail {

/// The worse of two states: failed beats dead beats live.
inline value_state combine(value_state x, value_state y) {
  return static_cast<uint8_t>(x) > static_cast<uint8_t>(y) ? x : y;
}

/// One out-edge with its consumer's handle.
struct out_edge {
  node_actor dst; ///< Unset when this actor hosts the consumer too.
  int32_t node;   ///< The consumer's index in the partition.
  int32_t port;   ///< The output port, or -1 for a control edge.
  int32_t slot;
  /// The consumer is hosted here and is not a Recv: its value may be
  /// handed over without the local queue (see `post`).
  bool direct = false;
  /// The consumer is an Exit hosted here (see `send_outputs`).
  bool to_exit = false;
};

/// The loop constants of one frame instance, for a node that reads them.
struct invariant_values {
  int missing = 0;
  value_state state = value_state::live;
  std::vector<ops::entry> values; ///< By input slot.
};

/// How the runtime routes a node's value itself (see `route`).
enum class route_kind : uint8_t {
  none,         ///< Its kernel runs.
  switch_value, ///< A Switch.
  merge_value,  ///< A Merge.
};

/// The state of one node. What a hop needs sits here, in the actor
/// object, rather than behind pointers into the plan: a chain of actors
/// touches little memory per hop.
struct node_state {
  const node_item* item = nullptr;
  node_kind kind = node_kind::kernel;
  int num_messages = 0;
  int num_slots = 0;
  /// Copies of plan fields every message looks at, kept in the actor.
  bool is_merge = false;
  bool has_invariants = false;
  route_kind kind_of_route = route_kind::none;
  ops::kernel* kernel = nullptr;
  /// The kernel's `is_async` and `is_expensive`, asked once.
  bool async_kernel = false;
  bool expensive_kernel = false;
  /// A Merge's `value_index` outputs, by input; none where nothing reads
  /// that output (a loop's Merges).
  std::vector<core::tensor> merge_index;
  /// Inputs bound to constants at instantiation, and those slots as bits
  /// (slots below 64). A node's input vectors keep these values between
  /// firings (see `release_inputs`): a slot of them holds its constant or
  /// nothing.
  std::vector<node_item::bound_input> constants;
  uint64_t constant_slots = 0;
  /// The out-edges, flattened on the first message: the consumers' handles
  /// exist only once the whole partition has been spawned.
  std::vector<out_edge> edges;
  bool edges_flat = false;
  /// Out-edges whose values go through a queue or a mailbox (not
  /// `out_edge::direct`): the tokens a firing reserves up front.
  int64_t queued_edges = 0;
  /// Whether the node is being handled further up this actor's stack (its
  /// inputs collected, its outputs sent): a value for it then waits in
  /// the local queue rather than being handed over directly.
  bool busy = false;
  pending_table pending;
  /// Loop constants by frame instance (tag with iteration
  /// `invariant_iter`), and the iterations that wait for them.
  std::unordered_map<tag, invariant_values, tag_hash> invariants;
  std::unordered_map<tag, std::vector<std::pair<tag, pending_inputs>>, tag_hash>
    parked;
  /// The entry of `invariants` last found complete, and its key: a loop's
  /// iterations read the same one (cleared when entries are erased).
  invariant_values* complete_invariants = nullptr;
  tag complete_key;
  /// Reused by synchronous kernels (an actor runs one node at a time); its
  /// input vector also collects the one-message fast path's input.
  std::optional<ops::kernel_context> ctx;
};

/// When an offloaded kernel of a traced step ran, written by the actor
/// that ran it and read once its completion has arrived.
struct kernel_times {
  int64_t start_us = 0;
  int64_t end_us = 0;
};

/// An asynchronous kernel in flight: its node, tag and context.
struct async_call {
  int node;
  actors::tag tag;
  std::unique_ptr<ops::kernel_context> ctx;
  bool counted;          ///< As work of its frame instance.
  step_tracker* tracker; ///< Of the token it holds.
  int64_t start_us = 0;  ///< When it was launched, if the step is traced.
  /// An offloaded kernel's own times, if the step is traced: the firing is
  /// its compute, not its wait for a thread.
  std::unique_ptr<kernel_times> times;
};

/// The most values an actor hands between its nodes per message (see
/// `node_actor_impl::hops_left`).
inline constexpr int hop_budget = 4096;

/// The actor class of a group of nodes. A class of its own rather than a
/// `stateful_actor`: the scheduler dynamic-casts every actor it resumes, and
/// a shallower hierarchy with a short type name makes that cast cheaper.
class node_actor_impl : public node_actor::base {
public:
  node_actor_impl(caf::actor_config& cfg, std::shared_ptr<partition_plan> plan,
                  int group);

  behavior_type make_behavior() override;

  /// Lets go of the plan (which holds every actor of the partition) and
  /// of the consumers' handles: nothing keeps a stopped actor alive, so a
  /// closed session frees its plans and actors. The contexts of kernels
  /// still in flight stay until the actor object goes.
  void on_exit() override {
    nodes.clear();
    instances.clear();
    current = nullptr;
    info = nullptr;
    plan.reset();
  }

  const char* name() const override {
    return "actorflow.node";
  }

  std::shared_ptr<partition_plan> plan;
  int group = 0;
  /// The hosted nodes, by index in the group.
  std::vector<node_state> nodes;
  /// Values between hosted nodes not yet handled.
  local_queue local;
  /// Whether a `drain_atom` to itself is on its way.
  bool drain_posted = false;
  /// Values the actor may still hand between its nodes (popped from `local`
  /// or handed over directly) before it lets the other actors on its
  /// scheduler thread run, and those messages that wait for the thread
  /// (an abort among them): CAF resumes an actor for up to 64 messages in
  /// a row, so what one message may do bounds how long the thread is held.
  int hops_left = hop_budget;
  /// Values handed over directly, one inside the other, right now.
  int direct_depth = 0;
  /// Tokens the actor keeps for itself until it has handled a message: 1
  /// when it hosts several nodes, 0 for a node alone. A firing hands
  /// values on directly (see `post`) after it may have given tokens away
  /// with queued ones: had it given its last, the step could end on
  /// another core while it still runs.
  int64_t kept = 0;
  /// Asynchronous kernels in flight, by id.
  std::unordered_map<uint64_t, async_call> async;
  uint64_t next_async = 0;
  /// The tracker of the step whose message is being handled (nullptr for
  /// a value from another worker that arrived before the step started
  /// here), and how many of its tokens this actor owns meanwhile (see
  /// `step_tracker`). Kept as a cache: most messages in a row share a step.
  step_tracker* tracker = nullptr;
  int64_t owned = 0;
  /// The group, and for a loop frame its instances with work here, by
  /// `frame_key`; the instance of the message being handled (kept after
  /// it, as a cache: most messages in a row share one).
  const node_group* info = nullptr;
  std::unordered_map<tag, frame_instance, tag_hash> instances;
  /// Held NextIteration values that may go on, as `advance` hands them on
  /// (kept: its buffer takes turns with the instances' held values).
  std::vector<frame_instance::held_value> ready;
  frame_instance* current = nullptr;
  tag current_key;
  /// The firing being traced, until it is recorded (`record_firing`):
  /// when it started (0: none), its tag, the bytes it produced or moved.
  int64_t firing_start = 0;
  tag firing_tag;
  int64_t firing_bytes = 0;
  /// When the firing ended, if not when it is recorded (an offloaded
  /// kernel's compute ended before its completion arrived); 0: now.
  int64_t firing_end = 0;
};

using self_ptr = node_actor_impl*;

/// Puts the node's constants into the slots of `inputs` that lost them
/// (a new vector, a kernel that took its input).
inline void fill_constants(const node_state& st,
                           std::vector<ops::entry>& inputs) {
  for (const auto& c : st.constants) {
    auto& in = inputs[static_cast<size_t>(c.slot)].value;
    if (!in.valid())
      in = c.value;
  }
}

/// Lets go of a node's input values after it fired, but for its constants
/// (`node_state::constant_slots`): copying them in anew for every firing
/// cost two atomic reference count changes each.
inline void release_inputs(const node_state& st,
                           std::vector<ops::entry>& inputs) {
  if (st.constant_slots == 0) {
    release(inputs);
    return;
  }
  for (size_t k = 0; k < inputs.size(); ++k)
    if (k >= 64 || (st.constant_slots >> k & 1) == 0) {
      inputs[k].value = core::tensor{};
      inputs[k].ref.reset();
    }
}

/// The key of the frame instance `t` belongs to.
inline tag frame_key(const tag& t) {
  return tag{t.step, t.frame, invariant_iter};
}

/// Points `self->tracker` at the tracker of `step` (nullptr if the step
/// has not started on this worker, or ended).
inline void use_tracker(self_ptr self, uint64_t step) {
  auto* t = self->tracker;
  if (t == nullptr || t->step.load(std::memory_order_acquire) != step)
    self->tracker = self->plan->trackers->find(step);
}

/// Makes sure this actor owns at least `n` tokens of the current step.
inline void reserve(self_ptr self, int64_t n) {
  if (self->owned < n && self->tracker != nullptr) {
    self->tracker->mint(n - self->owned);
    self->owned = n;
  }
}

/// Takes a token for a message or a kernel about to start, keeping the
/// actor's own (`node_actor_impl::kept`).
inline void take_token(self_ptr self) {
  reserve(self, 1 + self->kept);
  --self->owned;
}

/// Gives back the tokens left after a message was handled; the actor that
/// gives back a step's last token tells the master.
inline void finish(self_ptr self) {
  if (self->owned > 0 && self->tracker != nullptr
      && self->tracker->release(self->owned))
    self->send(self->plan->sink, step_complete_msg{self->tracker->step.load(
                                   std::memory_order_relaxed)});
  self->owned = 0;
}

/// Sends `msg` to the actor `dest` without a sender: node actors never
/// reply, and leaving the sender out spares a reference count on this
/// actor that the receiving core would otherwise have to touch. Passing our
/// execution unit keeps CAF scheduling `dest` on this worker.
inline void enqueue(self_ptr self, const node_actor& dest, value_msg&& msg) {
  caf::actor_cast<caf::abstract_actor*>(dest)->enqueue(
    caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                              std::move(msg)),
    self->context());
}

/// Queues `msg` for a hosted node, as work of its iteration (values stay in
/// their frame instance inside a group; Enters and Exits send to others).
inline void push_local(self_ptr self, value_msg&& msg) {
  bool counted = self->current != nullptr && msg.tag.iter >= 0
                 && self->current->add_work(msg.tag.iter);
  self->local.push(std::move(msg), counted);
}

/// The collector of the current step's firings; nullptr when the step is
/// not traced (see `step_tracker::stats`).
inline detail::step_stats_collector* collector(self_ptr self) {
  return self->tracker != nullptr ? self->tracker->stats : nullptr;
}

/// Starts tracing a firing of tag `t` now (the current step is traced).
inline void begin_firing(self_ptr self, const tag& t) {
  self->firing_start = now_micros();
  self->firing_tag = t;
  self->firing_bytes = 0;
}

/// Records the firing of `st` being traced as ending now. Call
/// before the firing sends anything on: once its messages are out, this
/// actor may hold no token of the step, which can then end and take its
/// collector with it. node/firing.cpp.
void record_firing(self_ptr self, const node_state& st);

/// Sends a node's outputs for tag `t` along its out-edges (`outputs`
/// nullptr: every edge gets `state` and no value); node/firing.cpp.
void send_outputs(self_ptr self, node_state& st, const tag& t,
                  value_state state, std::vector<ops::entry>* outputs);

/// Reports `err` (the node's first error in this step) to the master,
/// named after the node, its op and device; node/firing.cpp.
void report(self_ptr self, const node_state& st, const tag& t,
            const core::status& err);

/// Runs the node's kernel on `inputs` for tag `t` and sends its outputs
/// on, now or (offloaded, asynchronous) when it is done; node/kernel.cpp.
void run_kernel(self_ptr self, node_state& st, const tag& t,
                std::vector<ops::entry>& inputs);

/// Checks a finished kernel's outputs and sends them on (or reports its
/// error and sends failed values); node/kernel.cpp.
void finish_kernel(self_ptr self, node_state& st, const tag& t,
                   ops::kernel_context& ctx);

/// Marks a node busy while it is handled (see `node_state::busy`).
class busy_guard {
public:
  explicit busy_guard(node_state& st) : st_(st), was_(st.busy) {
    st.busy = true;
  }

  ~busy_guard() {
    st_.busy = was_;
  }

  busy_guard(const busy_guard&) = delete;
  busy_guard& operator=(const busy_guard&) = delete;

private:
  node_state& st_;
  bool was_;
};

/// Runs node `st` for tag `t` on `inputs` (all in), recording the firing
/// when the step is traced (an asynchronous kernel's when it is done);
/// node/firing.cpp.
void fire(self_ptr self, node_state& st, const tag& t, value_state state,
          std::vector<ops::entry>& inputs);

/// Takes value `m` for hosted node `st`: collects it with the other inputs
/// of its tag and fires the node once all are in; node/inputs.cpp.
void on_value(self_ptr self, node_state& st, value_msg& m);

} // namespace actorflow::actors::detail
