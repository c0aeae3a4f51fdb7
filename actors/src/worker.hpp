#pragma once

#include <memory>

#include <caf/actor_system.hpp>

#include "actorflow/actors/protocol.hpp"
#include "actorflow/actors/runtime_context.hpp"

namespace actorflow::actors {

/// Spawns the worker of a process: it owns `rt` (devices, registries,
/// variables, queues) and the partitions masters register with it, and
/// runs their steps (see `worker_actor`).
local_worker_actor spawn_worker(caf::actor_system& sys,
                                std::shared_ptr<runtime_context> rt);

} // namespace actorflow::actors
