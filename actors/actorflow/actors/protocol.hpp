#pragma once

/// The public protocol of the runtime: a session's (`session_actor`, what
/// a client or an actor of one's own asks a session). How a master drives
/// the workers of a cluster is the runtime's own (actors/src/
/// worker_protocol.hpp), as are the messages between node actors and from
/// them to their worker (actors/src/runtime_messages.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <map>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actorflow/actors/step_stats.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/graph_passes.hpp"

namespace actorflow::actors {

// -- atoms --------------------------------------------------------------------

using extend_atom = caf::atom_constant<caf::atom("extend")>;
using run_atom = caf::atom_constant<caf::atom("run")>;
using close_atom = caf::atom_constant<caf::atom("close")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using cancel_atom = caf::atom_constant<caf::atom("cancel")>;

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

} // namespace actorflow::actors

// These messages never leave their process: a session's client requests
// (a session actor lives beside its client).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::run_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::actors::run_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actorflow::graph::graph)
