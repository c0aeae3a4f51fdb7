#pragma once

// Internal: the blocking actors through which threads call a session.

#include <memory>
#include <mutex>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

namespace actorflow::actors::detail {

/// Blocking actors that calling threads borrow for one request each.
///
/// A fresh `caf::scoped_actor` per call costs more than the call's own
/// messages on a small step: CAF spawns it, and its end cancels its
/// timeouts on the actor clock, which wakes the clock's thread -- one more
/// thread hand-off per step (docs/performance.md, P6). Borrowed actors are
/// made once per concurrent caller and kept; they are hidden, so they do
/// not hold the actor system open.
class caller_pool {
public:
  /// A borrowed actor, handed back when the lease ends.
  class lease {
  public:
    lease(caller_pool& pool, std::unique_ptr<caf::scoped_actor> self)
      : pool_(&pool), self_(std::move(self)) {
      // nop
    }

    lease(lease&&) = default;

    ~lease();

    caf::blocking_actor* operator->() {
      return self_->ptr();
    }

  private:
    caller_pool* pool_;
    std::unique_ptr<caf::scoped_actor> self_;
  };

  explicit caller_pool(caf::actor_system& sys) : sys_(sys) {
    // nop
  }

  /// An idle actor, or a new one when every actor is in use.
  lease borrow();

private:
  caf::actor_system& sys_;
  std::mutex mtx_;
  std::vector<std::unique_ptr<caf::scoped_actor>> idle_;
};

} // namespace actorflow::actors::detail
