#pragma once

#include <memory>

#include <caf/actor_system.hpp>

#include "runtime_messages.hpp"
#include "worker/partition_plan.hpp"

namespace actorflow::actors {

/// Spawns the actor of group `group` of `plan`: for each node it hosts, it
/// collects the inputs of each tag, runs the node when all have arrived
/// and sends the outputs on (through its own queue to the nodes it hosts,
/// as messages to the others).
node_actor spawn_nodes(caf::actor_system& sys,
                       std::shared_ptr<partition_plan> plan, int group);

} // namespace actorflow::actors
