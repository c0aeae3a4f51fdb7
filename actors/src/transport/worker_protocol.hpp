#pragma once

/// The worker protocol: how a master drives the workers of a cluster, one
/// per process (`worker_actor`), and the messages it takes. Messages
/// inside one process share tensor buffers; those that cross processes
/// are encoded as Cap'n Proto when, and only when, they do
/// (transport/wire_codec.cpp). Not installed: applications reach workers
/// through sessions, `worker_ref` and `engine`.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_cast.hpp>
#include <caf/atom.hpp>
#include <caf/deserializer.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/serializer.hpp>
#include <caf/typed_actor.hpp>

#include "actorflow/actors/protocol.hpp"
#include "actorflow/actors/step_stats.hpp"
#include "actorflow/actors/worker_ref.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/validate.hpp"

namespace actorflow::actors {

/// What every process of a cluster names itself in CAF's handshake (BASP's
/// application identifier, `middleman.app-identifiers`): a peer whose
/// wire schema differs is refused when it connects, before any message.
/// Raise the number with every incompatible change of the messages that
/// cross processes (net/schema, ops/schema, these types' names).
inline constexpr const char* wire_identifier = "actorflow-wire-4";

// -- atoms --------------------------------------------------------------------

using devices_atom = caf::atom_constant<caf::atom("devices")>;
using register_atom = caf::atom_constant<caf::atom("register")>;
using route_atom = caf::atom_constant<caf::atom("route")>;
using deregister_atom = caf::atom_constant<caf::atom("deregister")>;
using abort_atom = caf::atom_constant<caf::atom("abort")>;
using idle_atom = caf::atom_constant<caf::atom("idle")>;
using peers_atom = caf::atom_constant<caf::atom("peers")>;
using collective_atom = caf::atom_constant<caf::atom("collective")>;
using link_atom = caf::atom_constant<caf::atom("link")>;
using hello_atom = caf::atom_constant<caf::atom("hello")>;

// -- values -----------------------------------------------------------------

/// Whether a value carries data.
enum class value_state : uint8_t {
  live,   ///< A value.
  dead,   ///< No value: an untaken branch (control flow).
  failed, ///< No value: an upstream kernel failed; the step is aborting.
};

// -- between the master and its workers --------------------------------------

/// Where a Recv of a registered partition lives: Sends with the same
/// `tensor_name` anywhere in the cluster deliver to it.
struct recv_entry {
  std::string tensor_name;
  /// The Recv's node actor (its group's; see `partition_plan`).
  caf::strong_actor_ptr actor;
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

/// A worker of a session, as the session tells its workers (`peers_atom`)
/// so that their collectives find the other members of a group: its task,
/// its actor and where it listens (port 0: in the session's process).
/// Workers connect to each other there: a handle that came by way of the
/// session's process would route every message through it.
struct peer_entry {
  std::string task;
  caf::strong_actor_ptr worker;
  std::string host;
  uint16_t port = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, peer_entry& x) {
  return f(caf::meta::type_name("peer_entry"), x.task, x.worker, x.host,
           x.port);
}

using peer_table = std::vector<peer_entry>;

/// The partitions of one run signature that a worker hosts, to register.
struct partition_set {
  std::vector<graph::graph> graphs;
  /// The partitions' dtypes, from the master that compiled them; not
  /// encoded: a set that crossed processes arrives without them, and its
  /// worker validates its graphs.
  std::vector<graph::graph_types> types;
  /// Why this message, from another process, did not decode (ok: it did).
  /// Never encoded. Its receiver drops it and disconnects the sender.
  core::status wire_error{};
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
  /// Why this message, from another process, did not decode (ok: it did).
  /// Never encoded. Its receiver drops it and disconnects the sender.
  core::status wire_error{};
};

/// A worker's part of a step is done: what its fetch nodes got and its
/// first error. The one message per worker and step that ends it.
struct step_report {
  uint64_t step = 0;
  std::vector<indexed_tensor> fetches;
  core::status error;
  /// The worker's firings, transfers and memory when the step was traced.
  step_stats stats;
  /// Why this message, from another process, did not decode (ok: it did).
  /// Never encoded. Its receiver drops it and disconnects the sender.
  core::status wire_error{};
};

/// A worker: one per process, owning its devices, variables and queues and
/// the partitions registered with it. Masters talk to a local worker and to
/// a remote one (published through CAF's middleman) alike:
/// - `devices_atom`: the full names of its devices;
/// - `register_atom`: builds a partition set, returns its handle and Recvs;
/// - `route_atom`: the Recvs of every worker of the set, for its Sends;
/// - `run_step_msg`: runs a step, answered when its part is done (and its
///   state there gone);
/// - `deregister_atom`: stops a partition set's actors;
/// - `abort_atom`: aborts a step's part here (its report still comes);
/// - `idle_atom`: answered once the worker runs no step;
/// - `peers_atom`: the workers of a session, where its collectives find
///   the other members of their groups;
/// - `collective_atom`: where this worker's collectives take values from
///   other members (its collective actor and bulk path);
/// - `link_atom`: connects to other workers directly, answered when every
///   connection is up or failed (see `master/registration.cpp`);
/// - `hello_atom, task, worker`: the worker of `task` introduces itself over
///   the connection it made; `hello_atom, task`: answered with that worker
///   once it has (see `join_peers`).
using worker_actor = caf::typed_actor<
  caf::replies_to<devices_atom>::with<std::vector<std::string>>,
  caf::replies_to<register_atom, partition_set>::with<registration>,
  caf::replies_to<route_atom, uint64_t, recv_table>::with<done_atom>,
  caf::replies_to<run_step_msg>::with<step_report>,
  caf::replies_to<deregister_atom, uint64_t>::with<done_atom>,
  caf::reacts_to<abort_atom, uint64_t>,
  caf::replies_to<idle_atom>::with<done_atom>,
  caf::reacts_to<peers_atom, peer_table>,
  caf::replies_to<collective_atom>::with<recv_entry>,
  caf::replies_to<link_atom, peer_table>::with<done_atom>,
  caf::reacts_to<hello_atom, std::string, caf::strong_actor_ptr>,
  caf::replies_to<hello_atom, std::string>::with<caf::strong_actor_ptr>>;

/// The worker protocol's handle of `w`.
inline worker_actor worker_of(const worker_ref& w) {
  return caf::actor_cast<worker_actor>(w.handle);
}

} // namespace actorflow::actors

// -- serialization ------------------------------------------------------------

namespace actorflow::actors {

/// The messages that cross processes are encoded as Cap'n Proto
/// (net/schema/wire.capnp) when CAF serializes them, and only then: a local
/// send shares the tensors. Decoding checks sizes and every field; a
/// message that fails is delivered empty with its `wire_error` set, so that
/// its receiver knows the sender and disconnects it: never a crash.
caf::error inspect(caf::serializer& f, partition_set& x);
caf::error inspect(caf::deserializer& f, partition_set& x);
caf::error inspect(caf::serializer& f, run_step_msg& x);
caf::error inspect(caf::deserializer& f, run_step_msg& x);
caf::error inspect(caf::serializer& f, step_report& x);
caf::error inspect(caf::deserializer& f, step_report& x);

std::string to_string(const partition_set& x);
std::string to_string(const run_step_msg& x);
std::string to_string(const step_report& x);

} // namespace actorflow::actors
