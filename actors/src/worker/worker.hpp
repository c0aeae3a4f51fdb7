#pragma once

#include <chrono>
#include <memory>

#include <caf/actor_system.hpp>

#include "actorflow/actors/runtime_context.hpp"
#include "runtime_messages.hpp"

namespace actorflow::actors {

class bulk_transport;

/// How a worker connects to other workers (`link_atom`): through TLS when
/// `tls`, giving up on one after `timeout`.
struct peer_links {
  bool tls = false;
  std::chrono::milliseconds timeout{15000};
};

/// Spawns the worker of a process: it owns `rt` (devices, registries,
/// variables, queues) and the partitions masters register with it, and
/// runs their steps (see `worker_actor`). With `bulk`, large tensors to and
/// from other workers with one too take that path. `collectives` is the
/// process's collective actor, reached by other workers at `endpoint`.
local_worker_actor spawn_worker(caf::actor_system& sys,
                                std::shared_ptr<runtime_context> rt,
                                std::shared_ptr<bulk_transport> bulk,
                                collective_actor collectives,
                                recv_entry endpoint, peer_links links);

} // namespace actorflow::actors
