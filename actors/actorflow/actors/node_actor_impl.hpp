#pragma once

#include <memory>

#include <caf/actor_system.hpp>

#include "actorflow/actors/partition_plan.hpp"
#include "actorflow/actors/protocol.hpp"

namespace actorflow::actors {

/// Spawns the actor of node `index` of `plan`: it collects the inputs of
/// each tag, runs the kernel when all have arrived and sends the outputs on.
node_actor spawn_node(caf::actor_system& sys,
                      std::shared_ptr<partition_plan> plan, int index);

} // namespace actorflow::actors
