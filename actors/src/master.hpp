#pragma once

#include <memory>

#include <caf/actor_system.hpp>

#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/protocol.hpp"
#include "actorflow/actors/runtime_context.hpp"

namespace actorflow::actors {

/// Spawns a session's master: it holds the session's graph, compiles each
/// distinct run signature once (rewrite, prune, place, partition, spawn node
/// actors), starts steps and answers them when every partition has
/// finished.
master_actor spawn_master(caf::actor_system& sys,
                          std::shared_ptr<runtime_context> rt,
                          session_options options);

} // namespace actorflow::actors
