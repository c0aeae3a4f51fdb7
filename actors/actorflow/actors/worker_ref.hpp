#pragma once

#include <string>
#include <vector>

#include "actorflow/actors/protocol.hpp"

namespace actorflow::actors {

/// A worker a session may place nodes on: its task name
/// (`/job:J/task:T`), its actor (local or remote) and the full names of
/// its devices, in placement order.
struct worker_ref {
  std::string task;
  worker_actor handle;
  std::vector<std::string> devices;
};

} // namespace actorflow::actors
