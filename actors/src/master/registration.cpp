// Registering a compiled plan with its workers: each builds its
// partitions and lists its Recvs, the workers that exchange values
// connect, and each learns where the Recvs its Sends deliver to are.

#include "master/registration.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>

#include <caf/send.hpp>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/ops/registration.hpp"
#include "master/steps.hpp"

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

/// For each part of `plan`, the Recvs (indices in `plan.recvs`) its Sends
/// deliver to; a Send without one is left to its worker to report.
using send_targets = std::vector<std::vector<size_t>>;

send_targets targets_of(const compiled_plan& plan) {
  std::unordered_map<std::string_view, size_t> by_name;
  for (size_t i = 0; i < plan.recvs.size(); ++i)
    by_name.emplace(plan.recvs[i].tensor_name, i);
  send_targets out(plan.parts.size());
  for (size_t p = 0; p < plan.parts.size(); ++p)
    for (const auto& name : plan.parts[p].sends)
      if (auto i = by_name.find(name); i != by_name.end())
        out[p].push_back(i->second);
  return out;
}

/// Tells every worker where the Recvs its Sends deliver to are -- those
/// alone, so that what is sent grows with the plan's edges, not with the
/// number of workers times the Recvs of all.
void route_sends(self_ptr self, const std::string& key, const plan_ptr& plan,
                 const send_targets& targets) {
  plan->replies_left = plan->parts.size();
  for (size_t p = 0; p < plan->parts.size(); ++p) {
    recv_table table;
    table.reserve(targets[p].size());
    for (auto i : targets[p])
      table.push_back(plan->recvs[i]);
    const auto& part = plan->parts[p];
    self
      ->request(worker_of(self->state.workers[part.worker]), caf::infinite,
                route_atom::value, part.handle, std::move(table))
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
}

/// Asks the plan's workers in other processes that send values to each
/// other to connect, then routes its Sends. A Recv's handle reaches a
/// worker by way of this process, and CAF sends a message for a node it
/// has no connection to through the node it learned of it from: without
/// this, every value between two workers would cross the network twice
/// and wake this process on the way (P8, docs/performance.md). Only pairs
/// with values between them connect: connections, and their heartbeats,
/// grow with the plan's edges, not with the square of its workers
/// (bench_scale, docs/scale.md). Of each pair the lower index connects:
/// between two that connect to each other at once, requests may go
/// unanswered (see `join_peers`).
void link_workers(self_ptr self, const std::string& key, const plan_ptr& plan) {
  auto& st = self->state;
  auto targets = std::make_shared<send_targets>(targets_of(*plan));
  std::map<size_t, std::set<size_t>> links;
  for (size_t p = 0; p < plan->parts.size(); ++p)
    for (auto i : (*targets)[p]) {
      auto a = plan->parts[p].worker;
      auto b = plan->parts[plan->recv_parts[i]].worker;
      if (a != b && st.workers[a].port != 0 && st.workers[b].port != 0)
        links[std::min(a, b)].insert(std::max(a, b));
    }
  if (links.empty()) {
    route_sends(self, key, plan, *targets);
    return;
  }
  plan->replies_left = links.size();
  auto settle = [self, key, plan, targets] {
    if (--plan->replies_left == 0)
      route_sends(self, key, plan, *targets);
  };
  for (const auto& [from, to] : links) {
    peer_table peers;
    for (auto w : to)
      peers.push_back(peer_of(st.workers[w]));
    // A worker that fails here fails the routing that follows.
    self
      ->request(worker_of(st.workers[from]), caf::infinite, link_atom::value,
                std::move(peers))
      .then([settle](done_atom) { settle(); },
            [settle](const caf::error&) { settle(); });
  }
}

/// What the master keeps of `part`'s partitions before they go: its Sends'
/// tensor names and whether it runs collectives.
void note_needs(compiled_plan::worker_part& part) {
  for (const auto& g : part.set.graphs)
    for (const auto& n : g.nodes()) {
      if (n.op == ops::runtime_op::send)
        part.sends.push_back(std::get<std::string>(n.attrs.at("tensor_name")));
      else if (n.op == "CollectiveAllReduce")
        part.collectives = true;
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
  // The session's workers, by task, for the collectives of the parts that
  // run them (the message arrives before the step: CAF keeps a sender's
  // order).
  peer_table peers;
  for (auto& part : plan->parts) {
    note_needs(part);
    if (!part.collectives)
      continue;
    if (peers.empty())
      for (const auto& w : self->state.workers)
        peers.push_back(peer_of(w));
    self->send(worker_of(self->state.workers[part.worker]), peers_atom::value,
               peers);
  }
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
          for (auto& r : reg.recvs) {
            plan->recvs.push_back(std::move(r));
            plan->recv_parts.push_back(i);
          }
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
