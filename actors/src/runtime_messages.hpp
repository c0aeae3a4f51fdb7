#pragma once

// The runtime's own messages, in one place: between the node actors of a
// worker (values with their tags, frames, steps ending or aborted), from
// them to their worker, and the requests of queues. Values travel between
// node actors as `value_msg`: a (step, frame, iteration) tag, the
// consumer's input slot, a state (live, dead, or failed because an
// upstream kernel failed) and the value. Only `value_msg` crosses
// processes (from a Send to a Recv on another worker), encoded as Cap'n
// Proto (net/schema/wire.capnp) when it does.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/deserializer.hpp>
#include <caf/serializer.hpp>
#include <caf/typed_actor.hpp>

#include "actorflow/ops/collective.hpp"
#include "actorflow/ops/entry.hpp"
#include "actorflow/ops/queue.hpp"
#include "transport/worker_protocol.hpp"
#include "worker/step_tracker.hpp"

namespace actorflow::actors {

/// A node actor's note to itself to go on with the values its nodes sent
/// each other.
using drain_atom = caf::atom_constant<caf::atom("drain")>;

// -- tags and values ----------------------------------------------------------

/// The iteration of a loop constant's tag: its value holds in every
/// iteration of the frame.
inline constexpr int64_t invariant_iter = -1;

/// Which execution a value belongs to: a step, a frame instance of that
/// step and an iteration of the frame (root frame 0, iteration 0 outside
/// loops). No pointers: a frame id is a pure function of (parent frame,
/// parent iteration, frame name), so partitions and workers agree on it
/// without talking, and each worker finds the frame's way back out and the
/// step's outstanding-work count by id (see `step_tracker`).
struct tag {
  uint64_t step = 0;
  uint64_t frame = 0;
  int64_t iter = 0;

  friend bool operator==(const tag& x, const tag& y) noexcept {
    return x.step == y.step && x.frame == y.frame && x.iter == y.iter;
  }
};

struct tag_hash {
  size_t operator()(const tag& x) const noexcept {
    auto h = x.step * 0x9E3779B97F4A7C15ull;
    h ^= x.frame + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= static_cast<uint64_t>(x.iter) + 0x9E3779B97F4A7C15ull + (h << 6)
         + (h >> 2);
    return static_cast<size_t>(h);
  }
};

/// The input slot that activations and control edges use.
inline constexpr int32_t control_slot = -1;

/// One value for one input slot of a node. Crosses processes (from a Send
/// to a Recv on another worker), encoded as Cap'n Proto (net/schema/
/// wire.capnp) only when it does.
struct value_msg {
  actors::tag tag;
  int32_t slot = control_slot;
  value_state state = value_state::live;
  ops::entry value;
  /// The receiving node, by index in its partition (an actor may host
  /// several nodes; see `partition_plan::groups`).
  int32_t node = 0;
  /// Sent by an Enter: one of the values that start a frame instance.
  bool entry = false;
  /// Inside a worker, the step's count there, of which the message holds a
  /// token (see `step_tracker`). Never encoded: a value from another
  /// worker arrives without one, holding no token, and the receiver finds
  /// the step's count by its id.
  step_tracker* tracker = nullptr;
  /// Why this message, from another process, did not decode (ok: it did).
  /// Never encoded. Its receiver drops it and disconnects the sender.
  core::status wire_error{};
};

/// A frame instance has no work left on a partition: its group tells the
/// group of the enclosing frame (instance `parent_frame`), which created
/// it. Holds a token of the step.
struct frame_done_msg {
  uint64_t step = 0;
  uint64_t parent_frame = 0;
  uint64_t frame = 0;
  step_tracker* tracker = nullptr; ///< Of the token it holds.
};

/// A step finished: node actors drop what they kept for it (loop
/// constants, frame instances).
struct step_done_msg {
  uint64_t step = 0;
};

/// A step was aborted on the worker: node actors drop what they keep for
/// it and give back the tokens it holds (see `step_tracker::aborted`).
struct step_abort_msg {
  uint64_t step = 0;
};

/// Completion of an asynchronous kernel, sent by a node actor to itself.
struct async_done_msg {
  uint64_t id = 0;
};

/// A fetched value (or why there is none), from a fetch node to its worker.
struct fetch_msg {
  uint64_t step = 0;
  int32_t index = 0;
  value_state state = value_state::live;
  core::tensor value;
};

/// The first error of a node in a step, from the node to its worker.
struct step_error_msg {
  uint64_t step = 0;
  core::status error;
};

/// The worker's last outstanding work of a step is done (see
/// `step_tracker`), from the node actor that finished it to its worker.
struct step_complete_msg {
  uint64_t step = 0;
};

/// The actor of a group of nodes of one partition: one node of the root
/// frame, or the nodes of one loop frame (see `partition_plan::groups`).
/// `drain_atom` is a note to itself to go on with the values its nodes
/// sent each other.
using node_actor
  = caf::typed_actor<caf::reacts_to<value_msg>, caf::reacts_to<async_done_msg>,
                     caf::reacts_to<step_done_msg>, caf::reacts_to<drain_atom>,
                     caf::reacts_to<frame_done_msg>,
                     caf::reacts_to<step_abort_msg>>;

/// Whatever takes values: a node actor, or a collective actor (the bulk
/// path delivers to either).
using value_sink = caf::typed_actor<caf::reacts_to<value_msg>>;

/// What node actors report to their worker.
using worker_sink_actor
  = caf::typed_actor<caf::reacts_to<fetch_msg>, caf::reacts_to<step_error_msg>,
                     caf::reacts_to<step_complete_msg>>;

/// A node actor's handle as a Recv's entry in a `recv_table` carries it.
inline node_actor recv_actor(const recv_entry& r) {
  return caf::actor_cast<node_actor>(r.actor);
}

/// The worker as its own node actors see it too.
using local_worker_actor = worker_actor::extend_with<worker_sink_actor>;

// -- queues -------------------------------------------------------------------

/// The requests of ops::queue, each answered through its callback (see
/// queue_state).
struct queue_enqueue_msg {
  std::vector<core::tensor> components;
  bool many;
  uint64_t step;
  ops::queue::done_fn done;
};

struct queue_dequeue_msg {
  int64_t n;
  bool many;
  bool up_to;
  uint64_t step;
  ops::queue::dequeue_fn done;
};

struct queue_cancel_msg {
  uint64_t step;
};

struct queue_close_msg {
  bool cancel_pending_enqueues;
  ops::queue::done_fn done;
};

struct queue_size_msg {
  std::function<void(int64_t)> done;
};

/// A FIFOQueue or RandomShuffleQueue: one actor per queue owns its state.
using queue_actor = caf::typed_actor<
  caf::reacts_to<queue_enqueue_msg>, caf::reacts_to<queue_dequeue_msg>,
  caf::reacts_to<queue_close_msg>, caf::reacts_to<queue_size_msg>,
  caf::reacts_to<queue_cancel_msg>>;

// -- collectives --------------------------------------------------------------

/// A member's part in an all-reduce, from ops::collective_executor.
struct collective_run_msg {
  ops::collective_spec spec;
  core::tensor input;
  uint64_t step;
  ops::collective_executor::done_fn done;
};

/// Step `step` failed here: its collectives that wait fail.
struct collective_cancel_msg {
  uint64_t step;
};

/// The collectives of a process (collectives/collective_actor.hpp). Values from
/// other members arrive as `value_msg` (through CAF or the bulk path); the
/// worker passes on the session's workers (`peers_atom`).
using collective_actor
  = caf::typed_actor<caf::reacts_to<value_msg>,
                     caf::reacts_to<collective_run_msg>,
                     caf::reacts_to<collective_cancel_msg>,
                     caf::reacts_to<peers_atom, peer_table>>;

caf::error inspect(caf::serializer& f, value_msg& x);
caf::error inspect(caf::deserializer& f, value_msg& x);

std::string to_string(const value_msg& x);

} // namespace actorflow::actors

// These messages never leave their process: between the node actors of a
// worker, from them to their worker, and queue requests with callbacks.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::async_done_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_done_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_abort_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::frame_done_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::fetch_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_error_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_complete_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_enqueue_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_dequeue_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_close_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_size_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_cancel_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::collective_run_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::collective_cancel_msg)
