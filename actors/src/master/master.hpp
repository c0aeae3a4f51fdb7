#pragma once

/// The master actor: what a session actor is, seen from inside.

#include <memory>
#include <vector>

#include <caf/actor_system.hpp>

#include "actorflow/actors/protocol.hpp"
#include "actorflow/actors/runtime_context.hpp"
#include "actorflow/actors/session_options.hpp"
#include "actorflow/actors/worker_ref.hpp"
#include "runtime_messages.hpp"
#include "transport/worker_protocol.hpp"

namespace actorflow::actors {

/// A run's deadline passed (the master's note to itself).
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;

/// A session's master: the session's interface, plus the early word of a
/// worker whose part of a step failed (`abort_atom, step`), on which the
/// master aborts the step on every worker, and its own note that a run's
/// deadline passed (`deadline_atom`, with the master's number of the run).
using master_actor
  = session_actor::extend<caf::reacts_to<abort_atom, uint64_t>,
                          caf::reacts_to<deadline_atom, uint64_t>>;

/// Spawns a session's master: it holds the session's graph, compiles each
/// distinct run signature once (rewrite, prune, place over the devices of
/// `workers`, partition), registers each worker's partitions with it, and
/// runs steps with one message per participating worker. `rt` gives the
/// op and kernel registries and the default device.
master_actor spawn_master(caf::actor_system& sys,
                          std::shared_ptr<runtime_context> rt,
                          std::vector<worker_ref> workers,
                          session_options options);

} // namespace actorflow::actors
