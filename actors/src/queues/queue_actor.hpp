#pragma once

// Internal: queues as actors, for the engine's resource_manager.

#include <caf/actor_system.hpp>

#include "actorflow/ops/queue.hpp"

namespace actorflow::actors {

/// Makes each queue an actor of `sys` owning a queue_state; the returned
/// ops::queue sends it the requests and stops it when dropped.
ops::queue_factory make_queue_factory(caf::actor_system& sys);

} // namespace actorflow::actors
