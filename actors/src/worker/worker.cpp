#include "worker/worker.hpp"

#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/logging.hpp"
#include "actorflow/graph/validate.hpp"
#include "guarded.hpp"
#include "node/node_actor.hpp"
#include "step_stats_collector.hpp"
#include "transport/bulk_transport.hpp"
#include "transport/peer_guard.hpp"
#include "transport/worker_link.hpp"
#include "worker/partition_plan.hpp"

namespace actorflow::actors {

namespace {

using plan_list = std::vector<std::shared_ptr<partition_plan>>;

/// A step this worker takes part in, from its `run_step_msg` until its
/// part is done.
struct running_step {
  caf::typed_response_promise<step_report> promise;
  step_report report;
  step_tracker* tracker = nullptr;
  uint64_t handle = 0;
  bool aborted = false;
  /// Whom to tell first when the part fails: the master that sent the
  /// step (master_actor, which takes `abort_atom, step`).
  caf::typed_actor<caf::reacts_to<abort_atom, uint64_t>> master;
  /// Where the step's firings are recorded, when it is traced.
  std::unique_ptr<detail::step_stats_collector> stats;
  std::chrono::steady_clock::time_point start;
};

struct worker_state {
  std::shared_ptr<runtime_context> rt;
  std::shared_ptr<bulk_transport> bulk;
  collective_actor collectives;
  recv_entry collective_endpoint;
  peer_links links;
  /// The peers (`host:port`) a link to failed: not tried again, so that a
  /// client whose addresses the workers cannot reach waits once.
  std::set<std::string> unreachable;
  std::shared_ptr<step_trackers> trackers = std::make_shared<step_trackers>();
  std::unordered_map<uint64_t, plan_list> sets;
  uint64_t next_handle = 1;
  std::unordered_map<uint64_t, running_step> steps;
  /// Who waits for the worker to run no step (`idle_atom`).
  std::vector<caf::typed_response_promise<done_atom>> idle_waiters;
  /// The workers of the tasks that introduced themselves (`hello_atom`),
  /// and who waits for a task's introduction.
  std::map<std::string, caf::strong_actor_ptr> introduced;
  std::multimap<std::string, caf::typed_response_promise<caf::strong_actor_ptr>>
    awaiting;

  ~worker_state() {
    for (auto& kvp : steps)
      kvp.second.promise.deliver(core::to_error(
        core::cancelled_error("the worker stopped during the step")));
    for (auto& kvp : sets)
      for (auto& p : kvp.second)
        p->shutdown();
  }

  static inline const char* name = "actorflow.worker";
};

using self_ptr = local_worker_actor::stateful_pointer<worker_state>;

core::status register_set(self_ptr self, partition_set& set,
                          registration* out) {
  auto& st = self->state;
  worker_sink_actor sink = self;
  auto spawn = [self](std::shared_ptr<partition_plan> p, int group) {
    return spawn_nodes(self->system(), std::move(p), group);
  };
  plan_list parts;
  auto fail = [&](core::status err) {
    for (auto& p : parts)
      p->shutdown();
    return err;
  };
  // From a master in another process: checked here, as anything that
  // arrives over the network. A local master's are validated already.
  bool from_wire = set.types.size() != set.graphs.size();
  if (from_wire)
    set.types.resize(set.graphs.size());
  for (size_t i = 0; i < set.graphs.size(); ++i) {
    auto& g = set.graphs[i];
    if (from_wire)
      if (auto vst = graph::validate(g, st.rt->ops(), &set.types[i], true);
          !vst.is_ok())
        return fail(vst);
    std::shared_ptr<partition_plan> part;
    auto bst
      = partition_plan::build(g, set.types[i], *st.rt, sink, spawn, &part);
    if (!bst.is_ok())
      return fail(bst);
    part->context = st.rt;
    part->trackers = st.trackers;
    part->bulk = st.bulk;
    parts.push_back(std::move(part));
  }
  out->handle = st.next_handle++;
  for (const auto& p : parts)
    p->list_recvs(&out->recvs);
  st.sets.emplace(out->handle, std::move(parts));
  st.rt->counters()->set_partition_sets(static_cast<int64_t>(st.sets.size()));
  return core::status::ok();
}

void report_step(self_ptr self, uint64_t id);

/// Aborts this worker's part of step `id`, as TensorFlow's executor stops
/// at a step's first error: queue operations waiting for it are cancelled,
/// its node actors drop what they keep for it and every message of it
/// still to come, so that its part ends at once -- loops included -- and
/// the report (with the error) goes to the master.
void abort_here(self_ptr self, uint64_t id) {
  auto& st = self->state;
  auto i = st.steps.find(id);
  if (i == st.steps.end() || i->second.aborted)
    return;
  auto& step = i->second;
  step.aborted = true;
  step.tracker->aborted.store(true, std::memory_order_release);
  st.rt->resources().cancel_step(id);
  auto set = st.sets.find(step.handle);
  if (set != st.sets.end())
    for (const auto& part : set->second)
      part->abort_step(id);
}

/// Starts this worker's part of a step: one activation per root, a feed's
/// with its tensor.
caf::result<step_report> run_step(self_ptr self, run_step_msg& msg) {
  if (detail::refuse_malformed(self, msg.wire_error))
    return core::to_error(msg.wire_error);
  auto& st = self->state;
  auto set = st.sets.find(msg.handle);
  if (set == st.sets.end())
    return core::to_error(core::failed_precondition_error(
      "no partition set ", msg.handle, " is registered with this worker"));
  if (msg.step == 0 || st.steps.count(msg.step) > 0)
    return core::to_error(core::invalid_argument_error(
      "step id ", msg.step, " is 0 or already running on this worker"));
  std::unordered_map<int32_t, core::tensor*> feeds;
  for (auto& f : msg.feeds)
    feeds[f.index] = &f.value;
  for (const auto& part : set->second)
    for (auto root : part->roots) {
      const auto& item = part->nodes[static_cast<size_t>(root)];
      if (item.kind == node_kind::feed && feeds.count(item.index_attr) == 0)
        return core::to_error(
          core::invalid_argument_error("feed ", item.index_attr,
                                       " was not sent to this worker")
            .with_context(item.def.name, item.def.op, part->device_name));
    }
  auto& step = st.steps[msg.step];
  step.handle = msg.handle;
  step.start = std::chrono::steady_clock::now();
  step.report.step = msg.step;
  // (Before the promise, which takes the request's sender over.)
  step.master = caf::actor_cast<decltype(step.master)>(self->current_sender());
  step.promise = self->make_response_promise<step_report>();
  step.tracker = st.trackers->acquire(msg.step);
  if (msg.trace) {
    step.stats = std::make_unique<detail::step_stats_collector>(set->second);
    step.tracker->stats = step.stats.get();
  }
  int64_t roots = 0;
  for (const auto& part : set->second)
    roots += static_cast<int64_t>(part->roots.size());
  if (roots == 0) {
    auto promise = step.promise;
    report_step(self, msg.step);
    return promise;
  }
  // Minted before the first is sent: the count cannot reach zero early.
  step.tracker->mint(roots);
  tag t{msg.step, 0, 0};
  for (const auto& part : set->second)
    for (auto root : part->roots) {
      const auto& item = part->nodes[static_cast<size_t>(root)];
      value_msg m{t, control_slot, value_state::live, {}, root};
      m.tracker = step.tracker;
      if (item.kind == node_kind::feed) {
        m.slot = 0;
        m.value.value = *feeds[item.index_attr];
      }
      self->send(part->actors[static_cast<size_t>(root)], std::move(m));
    }
  return step.promise;
}

/// This worker's part of step `id` is done: no message of the step can
/// arrive any more (every Recv that was to get a value had its activation
/// and held a token until the value came), so its state goes with the
/// report.
void report_step(self_ptr self, uint64_t id) {
  auto& st = self->state;
  auto i = st.steps.find(id);
  if (i == st.steps.end())
    return;
  auto& step = i->second;
  if (step.stats != nullptr)
    step.report.stats = step.stats->take();
  auto set = st.sets.find(step.handle);
  st.rt->counters()->step_done(std::chrono::steady_clock::now() - step.start,
                               step.report.error.is_ok());
  step.promise.deliver(std::move(step.report));
  st.rt->resources().drop_step(id);
  if (set != st.sets.end())
    for (const auto& part : set->second)
      for (const auto& a : part->step_state_actors)
        self->send(a, step_done_msg{id});
  st.trackers->release(step.tracker);
  st.steps.erase(i);
  if (st.steps.empty()) {
    for (auto& p : st.idle_waiters)
      p.deliver(done_atom::value);
    st.idle_waiters.clear();
  }
}

/// Where `peer` listens, `host:port`.
std::string address_of(const peer_entry& peer) {
  return peer.host + ":" + std::to_string(peer.port);
}

/// Tries at most this often to connect to a peer whose handshake is late.
constexpr int link_attempts = 3;

/// Connects to `peer` directly, then calls `done`. A failed connection
/// only costs speed: CAF routes the values for that peer through the
/// process that told this one of its Recvs. A peer that refuses or does
/// not answer in time is not tried again.
void link_peer(self_ptr self, const peer_entry& peer,
               std::function<void()> done) {
  const auto& links = self->state.links;
  retry_policy retry;
  retry.attempts = link_attempts;
  retry.try_timeout = links.timeout;
  self
    ->request(
      connect_worker(self->system(), peer.host, peer.port, links.tls, retry),
      caf::infinite, caf::connect_atom::value)
    .then([done](const worker_actor&) { done(); },
          [self, peer, done](caf::error& err) {
            auto address = address_of(peer);
            core::log().warn("worker: no direct connection to {} at {} ({}); "
                             "values for it go through the session's process",
                             peer.task, address,
                             connect_error_text(self->system(), err));
            self->state.unreachable.insert(address);
            done();
          });
}

/// Connects to `peers` directly, answered once every connection is up or
/// failed.
caf::result<done_atom> link_peers(self_ptr self, const peer_table& peers) {
  std::vector<const peer_entry*> todo;
  for (const auto& peer : peers)
    if (self->state.unreachable.count(address_of(peer)) == 0)
      todo.push_back(&peer);
  if (todo.empty())
    return done_atom::value;
  struct pending {
    caf::typed_response_promise<done_atom> promise;
    size_t left;
  };
  auto p = std::make_shared<pending>(
    pending{self->make_response_promise<done_atom>(), todo.size()});
  for (const auto* peer : todo)
    link_peer(self, *peer, [p] {
      if (--p->left == 0)
        p->promise.deliver(done_atom::value);
    });
  return p->promise;
}

local_worker_actor::behavior_type
worker_impl(self_ptr self, std::shared_ptr<runtime_context> rt,
            std::shared_ptr<bulk_transport> bulk, collective_actor collectives,
            recv_entry endpoint, peer_links links) {
  self->state.rt = std::move(rt);
  self->state.links = links;
  self->state.bulk = std::move(bulk);
  self->state.collectives = std::move(collectives);
  self->state.collective_endpoint = std::move(endpoint);
  return {
    [self](devices_atom) {
      std::vector<std::string> names;
      for (const auto& d : self->state.rt->devices().all())
        names.push_back(d->name());
      return names;
    },
    [self](register_atom, partition_set& set) -> caf::result<registration> {
      if (detail::refuse_malformed(self, set.wire_error))
        return core::to_error(set.wire_error);
      registration reg;
      auto st = guarded("registering partitions",
                        [&] { return register_set(self, set, &reg); });
      if (!st.is_ok())
        return core::to_error(st);
      return reg;
    },
    [self](route_atom, uint64_t handle,
           const recv_table& recvs) -> caf::result<done_atom> {
      auto set = self->state.sets.find(handle);
      if (set == self->state.sets.end())
        return core::to_error(core::failed_precondition_error(
          "no partition set ", handle, " is registered with this worker"));
      for (auto& part : set->second) {
        auto st = part->route_sends(recvs, self->node());
        if (!st.is_ok())
          return core::to_error(st);
      }
      return done_atom::value;
    },
    [self](run_step_msg& msg) { return run_step(self, msg); },
    [self](deregister_atom, uint64_t handle) {
      auto set = self->state.sets.find(handle);
      if (set != self->state.sets.end()) {
        for (auto& p : set->second)
          p->shutdown();
        self->state.sets.erase(set);
        self->state.rt->counters()->set_partition_sets(
          static_cast<int64_t>(self->state.sets.size()));
      }
      return done_atom::value;
    },
    [self](fetch_msg& m) {
      auto i = self->state.steps.find(m.step);
      if (i != self->state.steps.end())
        i->second.report.fetches.push_back(
          indexed_tensor{m.index, m.state, std::move(m.value)});
    },
    [self](step_error_msg& m) {
      auto i = self->state.steps.find(m.step);
      if (i != self->state.steps.end() && i->second.report.error.is_ok()) {
        i->second.report.error = std::move(m.error);
        // The step has failed: it stops here, and the master tells the
        // other workers, whose parts may wait for values from this one.
        if (i->second.master)
          self->send(i->second.master, abort_atom::value, m.step);
        abort_here(self, m.step);
      }
    },
    [self](abort_atom, uint64_t step) {
      // Another worker's part failed, the run's deadline passed or it was
      // cancelled: this part stops too; its report still comes.
      auto i = self->state.steps.find(step);
      if (i == self->state.steps.end())
        return;
      if (i->second.report.error.is_ok())
        i->second.report.error
          = core::cancelled_error("step ", step, " was aborted");
      abort_here(self, step);
    },
    [self](step_complete_msg m) { report_step(self, m.step); },
    [self](idle_atom) -> caf::result<done_atom> {
      if (self->state.steps.empty())
        return done_atom::value;
      auto promise = self->make_response_promise<done_atom>();
      self->state.idle_waiters.push_back(promise);
      return promise;
    },
    [self](peers_atom, peer_table& peers) {
      self->send(self->state.collectives, peers_atom::value, std::move(peers));
    },
    [self](collective_atom) { return self->state.collective_endpoint; },
    [self](link_atom, const peer_table& peers) {
      return link_peers(self, peers);
    },
    [self](hello_atom, const std::string& task, caf::strong_actor_ptr& w) {
      auto& st = self->state;
      auto [first, last] = st.awaiting.equal_range(task);
      for (auto i = first; i != last; ++i)
        i->second.deliver(w);
      st.awaiting.erase(first, last);
      st.introduced[task] = std::move(w);
    },
    [self](hello_atom,
           const std::string& task) -> caf::result<caf::strong_actor_ptr> {
      auto& st = self->state;
      if (auto i = st.introduced.find(task); i != st.introduced.end())
        return i->second;
      auto promise = self->make_response_promise<caf::strong_actor_ptr>();
      st.awaiting.emplace(task, promise);
      return promise;
    },
  };
}

} // namespace

local_worker_actor spawn_worker(caf::actor_system& sys,
                                std::shared_ptr<runtime_context> rt,
                                std::shared_ptr<bulk_transport> bulk,
                                collective_actor collectives,
                                recv_entry endpoint, peer_links links) {
  return sys.spawn(worker_impl, std::move(rt), std::move(bulk),
                   std::move(collectives), std::move(endpoint), links);
}

} // namespace actorflow::actors
