#pragma once

/// Every message and typed actor interface of the runtime, in one place.
///
/// Values travel between node actors as `value_msg`: a (step, frame,
/// iteration) tag, the consumer's input slot, a state (live, dead, or failed
/// because an upstream kernel failed) and the value. A master drives its
/// workers (one per process) with the `worker_actor` protocol. Messages
/// inside one process share tensor buffers; those that cross processes are
/// encoded as Cap'n Proto when, and only when, they do.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <map>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/deserializer.hpp>
#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/serializer.hpp>
#include <caf/typed_actor.hpp>

#include "actorflow/actors/step_stats.hpp"
#include "actorflow/actors/step_tracker.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/optimizer.hpp"
#include "actorflow/graph/validate.hpp"
#include "actorflow/ops/entry.hpp"
#include "actorflow/ops/queue.hpp"

namespace actorflow::actors {

/// What every process of a cluster names itself in CAF's handshake (BASP's
/// application identifier, `middleman.app-identifiers`): a peer whose
/// wire schema differs is refused when it connects, before any message.
/// Raise the number with every incompatible change of the messages that
/// cross processes (net/schema, ops/schema, these types' names).
inline constexpr const char* wire_identifier = "actorflow-wire-1";

// -- atoms --------------------------------------------------------------------

using extend_atom = caf::atom_constant<caf::atom("extend")>;
using run_atom = caf::atom_constant<caf::atom("run")>;
using close_atom = caf::atom_constant<caf::atom("close")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using drain_atom = caf::atom_constant<caf::atom("drain")>;
using devices_atom = caf::atom_constant<caf::atom("devices")>;
using register_atom = caf::atom_constant<caf::atom("register")>;
using wire_atom = caf::atom_constant<caf::atom("wire")>;
using deregister_atom = caf::atom_constant<caf::atom("deregister")>;
using abort_atom = caf::atom_constant<caf::atom("abort")>;
using cancel_atom = caf::atom_constant<caf::atom("cancel")>;
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;
using idle_atom = caf::atom_constant<caf::atom("idle")>;

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

/// Whether a value carries data.
enum class value_state : uint8_t {
  live,   ///< A value.
  dead,   ///< No value: an untaken branch (control flow).
  failed, ///< No value: an upstream kernel failed; the step is aborting.
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

/// What node actors report to their worker.
using worker_sink_actor
  = caf::typed_actor<caf::reacts_to<fetch_msg>, caf::reacts_to<step_error_msg>,
                     caf::reacts_to<step_complete_msg>>;

// -- between the master and its workers --------------------------------------

/// Where a Recv of a registered partition lives: Sends with the same
/// `tensor_name` anywhere in the cluster deliver to it.
struct recv_entry {
  std::string tensor_name;
  node_actor actor;
  int32_t node = 0;
  /// Where large tensors for it go instead (its worker's bulk path,
  /// `host:port`; empty: none), and its key there.
  std::string bulk_address;
  uint64_t bulk_key = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, recv_entry& x) {
  return f(caf::meta::type_name("recv_entry"), x.tensor_name, x.actor, x.node,
           x.bulk_address, x.bulk_key);
}

using recv_table = std::vector<recv_entry>;

/// The partitions of one run signature that a worker hosts, to register.
struct partition_set {
  std::vector<graph::graph> graphs;
  /// The partitions' dtypes, from the master that compiled them; not
  /// encoded: a set that crossed processes arrives without them, and its
  /// worker validates its graphs.
  std::vector<graph::graph_types> types;
};

/// A registered partition set: the handle to run it by and its Recvs.
struct registration {
  uint64_t handle = 0;
  recv_table recvs;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, registration& x) {
  return f(caf::meta::type_name("registration"), x.handle, x.recvs);
}

/// A tensor by position: a feed (by its index in the run's feeds) or a
/// fetch (by its index in the run's fetches, with its state).
struct indexed_tensor {
  int32_t index = 0;
  value_state state = value_state::live;
  core::tensor value;
};

/// Runs one step of a registered partition set on a worker: the one
/// message per worker and step that starts it.
struct run_step_msg {
  uint64_t handle = 0;
  uint64_t step = 0;
  /// The feeds the worker's partitions read.
  std::vector<indexed_tensor> feeds;
  /// Whether the worker records the step's firings (`step_report::stats`).
  bool trace = false;
};

/// A worker's part of a step is done: what its fetch nodes got and its
/// first error. The one message per worker and step that ends it.
struct step_report {
  uint64_t step = 0;
  std::vector<indexed_tensor> fetches;
  core::status error;
  /// The worker's firings, transfers and memory when the step was traced.
  step_stats stats;
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
  /// How long the run may take from its arrival at the session; 0: no
  /// limit. Past it the run fails with `deadline_exceeded` and its step is
  /// aborted on every worker.
  int64_t timeout_ms = 0;
  /// The client's name for the run, unique in the session, by which
  /// `cancel_atom` cancels it; 0: it cannot be cancelled.
  uint64_t run_id = 0;
  /// What the run records of itself (`run_metadata::stats`).
  trace_level trace = trace_level::none;
  /// Whether `run_metadata::partition_graphs` is filled in.
  bool partition_graphs = false;
  /// Which graph passes run; none given: the session's choice.
  std::optional<graph::pass_selection> passes = std::nullopt;
};

/// What a run tells besides its tensors, like TensorFlow's RunMetadata.
struct run_metadata {
  /// The device each node of the step was placed on, by node name: the
  /// graph's nodes the step runs, and the `_Feed`, `_Fetch`, `_Send` and
  /// `_Recv` nodes the session added for it.
  std::map<std::string, std::string> placement;
  /// What every device did in the step, when it was traced
  /// (`run_options::trace`).
  step_stats stats;
  /// The partitions the step ran, one per device, with the Send and Recv
  /// nodes that join them, when asked for
  /// (`run_options::partition_graphs`).
  std::vector<graph::graph> partition_graphs;
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

// -- typed actor interfaces ---------------------------------------------------

/// A session: extend its graph, run steps, close it. Errors come back as
/// `caf::error`s of category `actorflow` (see `core::from_error`).
/// `cancel_atom, id` fails the run with `run_request::run_id` == id (in
/// flight, or still to come) with `cancelled` and aborts its step.
using session_actor = caf::typed_actor<
  caf::replies_to<extend_atom, graph::graph>::with<done_atom>,
  caf::replies_to<run_atom, run_request>::with<run_result>,
  caf::replies_to<close_atom>::with<done_atom>,
  caf::reacts_to<cancel_atom, uint64_t>>;

/// A worker: one per process, owning its devices, variables and queues and
/// the partitions registered with it. Masters talk to a local worker and to
/// a remote one (published through CAF's middleman) alike:
/// - `devices_atom`: the full names of its devices;
/// - `register_atom`: builds a partition set, returns its handle and Recvs;
/// - `wire_atom`: the Recvs of every worker of the set, for its Sends;
/// - `run_step_msg`: runs a step, answered when its part is done (and its
///   state there gone);
/// - `deregister_atom`: stops a partition set's actors;
/// - `abort_atom`: aborts a step's part here (its report still comes);
/// - `idle_atom`: answered once the worker runs no step.
using worker_actor = caf::typed_actor<
  caf::replies_to<devices_atom>::with<std::vector<std::string>>,
  caf::replies_to<register_atom, partition_set>::with<registration>,
  caf::replies_to<wire_atom, uint64_t, recv_table>::with<done_atom>,
  caf::replies_to<run_step_msg>::with<step_report>,
  caf::replies_to<deregister_atom, uint64_t>::with<done_atom>,
  caf::reacts_to<abort_atom, uint64_t>,
  caf::replies_to<idle_atom>::with<done_atom>>;

/// The worker as its own node actors see it too.
using local_worker_actor = worker_actor::extend_with<worker_sink_actor>;

/// A FIFOQueue or RandomShuffleQueue: one actor per queue owns its state.
using queue_actor = caf::typed_actor<
  caf::reacts_to<queue_enqueue_msg>, caf::reacts_to<queue_dequeue_msg>,
  caf::reacts_to<queue_close_msg>, caf::reacts_to<queue_size_msg>,
  caf::reacts_to<queue_cancel_msg>>;

} // namespace actorflow::actors

// -- serialization ------------------------------------------------------------

namespace actorflow::actors {

/// The messages that cross processes are encoded as Cap'n Proto
/// (net/schema/wire.capnp) when CAF serializes them, and only then: a local
/// send shares the tensors. Decoding checks sizes and every field; a
/// malformed message is an error, never a crash.
caf::error inspect(caf::serializer& f, value_msg& x);
caf::error inspect(caf::deserializer& f, value_msg& x);
caf::error inspect(caf::serializer& f, partition_set& x);
caf::error inspect(caf::deserializer& f, partition_set& x);
caf::error inspect(caf::serializer& f, run_step_msg& x);
caf::error inspect(caf::deserializer& f, run_step_msg& x);
caf::error inspect(caf::serializer& f, step_report& x);
caf::error inspect(caf::deserializer& f, step_report& x);

std::string to_string(const value_msg& x);
std::string to_string(const partition_set& x);
std::string to_string(const run_step_msg& x);
std::string to_string(const step_report& x);

} // namespace actorflow::actors

// These messages never leave their process: between the node actors of a
// worker, from them to their worker, queue requests with callbacks, and a
// session's client requests (a session actor lives beside its client).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::async_done_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_done_msg)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::step_abort_msg)
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
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::queue_cancel_msg)
