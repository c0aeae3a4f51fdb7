// Registering a compiled plan with its workers: each builds its
// partitions and lists its Recvs, then every worker learns where the Recvs
// of all are.

#include "master_registration.hpp"

#include <algorithm>

#include <caf/send.hpp>

#include "actorflow/core/caf_error.hpp"
#include "master_steps.hpp"

namespace actorflow::actors::detail {

/// Registration of `plan` failed or succeeded on every worker: the runs
/// waiting for it go on or fail.
void settle_plan(self_ptr self, const std::string& key, const plan_ptr& plan) {
  auto& st = self->state;
  auto waiting = std::move(plan->waiting);
  plan->waiting.clear();
  if (!plan->error.is_ok()) {
    st.deregister(*plan);
    auto i = st.plans.find(key);
    if (i != st.plans.end() && i->second == plan)
      st.plans.erase(i);
    for (auto& w : waiting)
      w.promise.deliver(core::to_error(plan->error));
    return;
  }
  plan->ready = true;
  for (auto& w : waiting)
    launch_step(self, plan, w.req, std::move(w.promise), w.ticket);
}

namespace {

/// Worker `w` as its peers find it.
peer_entry peer_of(const worker_ref& w) {
  return peer_entry{w.task, caf::actor_cast<caf::strong_actor_ptr>(w.handle),
                    w.host, w.port};
}

/// Tells every worker where the Recvs of all workers are, for its Sends.
void route_sends(self_ptr self, const std::string& key, const plan_ptr& plan) {
  plan->replies_left = plan->parts.size();
  for (const auto& part : plan->parts)
    self
      ->request(worker_of(self->state.workers[part.worker]), caf::infinite,
                route_atom::value, part.handle, plan->recvs)
      .then(
        [self, key, plan](done_atom) {
          if (--plan->replies_left == 0)
            settle_plan(self, key, plan);
        },
        [self, key, plan](caf::error& err) {
          if (plan->error.is_ok())
            plan->error = core::from_error(err);
          if (--plan->replies_left == 0)
            settle_plan(self, key, plan);
        });
}

/// Asks the plan's workers in other processes to connect to each other,
/// then routes its Sends. A Recv's handle reaches a worker by way of this
/// process, and CAF sends a message for a node it has no connection to
/// through the node it learned of it from: without this, every value
/// between two workers would cross the network twice and wake this
/// process on the way (P8, docs/performance.md). Of each pair the one
/// listed first connects: two that connect to each other at once may both
/// lose the connection (BASP keeps one per pair of nodes).
void link_workers(self_ptr self, const std::string& key, const plan_ptr& plan) {
  auto& st = self->state;
  std::vector<size_t> remote;
  for (const auto& part : plan->parts)
    if (st.workers[part.worker].port != 0)
      remote.push_back(part.worker);
  std::sort(remote.begin(), remote.end());
  remote.erase(std::unique(remote.begin(), remote.end()), remote.end());
  if (remote.size() < 2) {
    route_sends(self, key, plan);
    return;
  }
  plan->replies_left = remote.size() - 1;
  auto settle = [self, key, plan] {
    if (--plan->replies_left == 0)
      route_sends(self, key, plan);
  };
  for (size_t i = 0; i + 1 < remote.size(); ++i) {
    peer_table peers;
    for (size_t j = i + 1; j < remote.size(); ++j)
      peers.push_back(peer_of(st.workers[remote[j]]));
    // A worker that fails here fails the routing that follows.
    self
      ->request(worker_of(st.workers[remote[i]]), caf::infinite,
                link_atom::value, std::move(peers))
      .then([settle](done_atom) { settle(); },
            [settle](const caf::error&) { settle(); });
  }
}

} // namespace

void register_plan(self_ptr self, const std::string& key,
                   const plan_ptr& plan) {
  plan->error = gone_worker(self->state, *plan);
  if (plan->parts.empty() || !plan->error.is_ok()) {
    settle_plan(self, key, plan);
    return;
  }
  // The session's workers, by task, for the collectives among them (the
  // message arrives before the step: CAF keeps a sender's order).
  peer_table peers;
  for (const auto& w : self->state.workers)
    peers.push_back(peer_of(w));
  for (const auto& part : plan->parts)
    self->send(worker_of(self->state.workers[part.worker]), peers_atom::value,
               peers);
  plan->replies_left = plan->parts.size();
  auto settle = [self, key, plan] {
    if (--plan->replies_left > 0)
      return;
    if (plan->error.is_ok())
      link_workers(self, key, plan);
    else
      settle_plan(self, key, plan);
  };
  for (size_t i = 0; i < plan->parts.size(); ++i) {
    auto& part = plan->parts[i];
    self
      ->request(worker_of(self->state.workers[part.worker]), caf::infinite,
                register_atom::value, std::move(part.set))
      .then(
        [plan, i, settle](registration& reg) {
          plan->parts[i].handle = reg.handle;
          for (auto& r : reg.recvs)
            plan->recvs.push_back(std::move(r));
          settle();
        },
        [self, plan, i, settle](caf::error& err) {
          if (plan->error.is_ok())
            plan->error = core::from_error(err).with_context(
              "", "", self->state.workers[plan->parts[i].worker].task);
          settle();
        });
    part.set = partition_set{};
  }
}

} // namespace actorflow::actors::detail
