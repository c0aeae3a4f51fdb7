#pragma once

/// Every message and typed actor interface of the runtime, in one place.
///
/// Values travel between node actors as `value_msg`: a (step, frame,
/// iteration) tag, the consumer's input slot, a state (live, dead, or failed
/// because an upstream kernel failed) and the value. Messages inside one
/// process share tensor buffers; the network layer adds a Cap'n Proto
/// encoding for the types that cross machines.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <map>

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actorflow/actors/step_tracker.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/ops/entry.hpp"
#include "actorflow/ops/queue.hpp"

namespace actorflow::actors {

// -- atoms --------------------------------------------------------------------

using extend_atom = caf::atom_constant<caf::atom("extend")>;
using run_atom = caf::atom_constant<caf::atom("run")>;
using close_atom = caf::atom_constant<caf::atom("close")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using drain_atom = caf::atom_constant<caf::atom("drain")>;

// -- tags and values ----------------------------------------------------------

/// The iteration of a loop constant's tag: its value holds in every
/// iteration of the frame.
inline constexpr int64_t invariant_iter = -1;

/// Which execution a value belongs to: a step, a frame instance of that
/// step and an iteration of the frame (root frame 0, iteration 0 outside
/// loops). A frame id is a pure function of (parent frame, parent
/// iteration, frame name), so partitions agree on it without talking;
/// `frame_info` is how an Exit finds its way back, `tracker` counts the
/// step's outstanding work.
struct tag {
  uint64_t step = 0;
  uint64_t frame = 0;
  int64_t iter = 0;
  const frame_ref* frame_info = nullptr;
  step_tracker* tracker = nullptr;

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

/// Whether a value carries data.
enum class value_state : uint8_t {
  live,   ///< A value.
  dead,   ///< No value: an untaken branch (control flow).
  failed, ///< No value: an upstream kernel failed; the step is aborting.
};

/// The input slot that activations and control edges use.
inline constexpr int32_t control_slot = -1;

/// One value for one input slot of a node.
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
};

/// A frame instance has no work left on a partition: its group tells the
/// group of the enclosing frame (instance `parent_frame`), which created
/// it.
struct frame_done_msg {
  uint64_t step = 0;
  uint64_t parent_frame = 0;
  uint64_t frame = 0;
  step_tracker* tracker = nullptr; ///< The message holds one of its tokens.
};

/// A step finished: node actors drop what they kept for it (loop
/// constants, frame instances).
struct step_done_msg {
  uint64_t step = 0;
};

/// Completion of an asynchronous kernel, sent by a node actor to itself.
struct async_done_msg {
  uint64_t id = 0;
};

/// A fetched value (or why there is none), from a fetch node to the master.
struct fetch_msg {
  uint64_t step = 0;
  int32_t index = 0;
  value_state state = value_state::live;
  core::tensor value;
};

/// The first error of a node in a step, from the node to the master.
struct step_error_msg {
  uint64_t step = 0;
  core::status error;
};

/// A step's last outstanding work is done (see `step_tracker`).
struct step_complete_msg {
  uint64_t step = 0;
};

// -- the session's client interface ------------------------------------------

/// The tensors to feed, by tensor name (`node:port`).
using feed_list = std::vector<std::pair<std::string, core::tensor>>;

/// What one run asks for.
struct run_request {
  feed_list feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  /// Whether `run_result::metadata` is filled in.
  bool want_metadata = false;
};

/// What a run tells besides its tensors, like TensorFlow's RunMetadata.
struct run_metadata {
  /// The device each node of the step was placed on, by node name: the
  /// graph's nodes the step runs, and the `_Feed`, `_Fetch`, `_Send` and
  /// `_Recv` nodes the session added for it.
  std::map<std::string, std::string> placement;
};

/// The fetched tensors, in the order of `run_request::fetches`, and the
/// metadata when asked for.
struct run_result {
  std::vector<core::tensor> outputs;
  run_metadata metadata;
};

// -- queues -------------------------------------------------------------------

/// The requests of ops::queue, each answered through its callback (see
/// queue_state).
struct queue_enqueue_msg {
  std::vector<core::tensor> components;
  bool many;
  ops::queue::done_fn done;
};

struct queue_dequeue_msg {
  int64_t n;
  bool many;
  bool up_to;
  ops::queue::dequeue_fn done;
};

struct queue_close_msg {
  bool cancel_pending_enqueues;
  ops::queue::done_fn done;
};

struct queue_size_msg {
  std::function<void(int64_t)> done;
};

// -- typed actor interfaces ---------------------------------------------------

/// A session: extend its graph, run steps, close it. Errors come back as
/// `caf::error`s of category `actorflow` (see `core::from_error`).
using session_actor = caf::typed_actor<
  caf::replies_to<extend_atom, graph::graph>::with<done_atom>,
  caf::replies_to<run_atom, run_request>::with<run_result>,
  caf::replies_to<close_atom>::with<done_atom>>;

/// The session plus what its node actors report to it.
using master_actor = session_actor::extend<caf::reacts_to<fetch_msg>,
                                           caf::reacts_to<step_error_msg>,
                                           caf::reacts_to<step_complete_msg>>;

/// The actor of a group of nodes of one partition: one node of the root
/// frame, or the nodes of one loop frame (see `partition_plan::groups`).
/// `drain_atom` is a note to itself to go on with the values its nodes
/// sent each other.
using node_actor
  = caf::typed_actor<caf::reacts_to<value_msg>, caf::reacts_to<async_done_msg>,
                     caf::reacts_to<step_done_msg>, caf::reacts_to<drain_atom>,
                     caf::reacts_to<frame_done_msg>>;

/// A FIFOQueue or RandomShuffleQueue: one actor per queue owns its state.
using queue_actor = caf::typed_actor<
  caf::reacts_to<queue_enqueue_msg>, caf::reacts_to<queue_dequeue_msg>,
  caf::reacts_to<queue_close_msg>, caf::reacts_to<queue_size_msg>>;

} // namespace actorflow::actors

// These messages never leave the process in this layer; the network layer
// gives the ones that do a Cap'n Proto encoding.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::value_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::async_done_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_done_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::frame_done_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::fetch_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_error_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_complete_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::run_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::run_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::graph::graph)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_enqueue_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_dequeue_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_close_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_size_msg)
