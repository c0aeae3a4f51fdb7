#pragma once

// Waits until a worker runs no step: how the tests see that an aborted
// step's state is gone everywhere, without waiting on a clock.

#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "transport/worker_protocol.hpp"

namespace actorflow::test {

/// Whether `worker` answered `idle_atom` (it runs no step) within 30 s.
inline bool worker_idle(caf::actor_system& sys,
                        const actors::worker_actor& worker) {
  bool idle = false;
  caf::scoped_actor self{sys};
  self->request(worker, std::chrono::seconds{30}, actors::idle_atom::value)
    .receive([&](actors::done_atom) { idle = true; }, [](const caf::error&) {});
  return idle;
}

} // namespace actorflow::test
