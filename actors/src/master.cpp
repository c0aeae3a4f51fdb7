#include "master.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <unordered_map>

#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/logging.hpp"
#include "actorflow/graph/compile_run.hpp"
#include "actorflow/ops/registration.hpp"
#include "guarded.hpp"

namespace actorflow::actors {

namespace {

/// A run waiting for its signature's partitions to be registered, with
/// the master's number for it (for its deadline).
struct waiting_run {
  run_request req;
  caf::typed_response_promise<run_result> promise;
  uint64_t ticket = 0;
};

/// Everything compiled for one run signature: the partitions of each
/// participating worker and how they are registered there.
struct compiled_plan {
  struct worker_part {
    size_t worker = 0;          ///< Index in the session's workers.
    uint64_t handle = 0;        ///< The registration, once it is known.
    std::vector<int32_t> feeds; ///< The feeds its partitions read.
    partition_set set;          ///< Sent once, when registering.
  };
  std::vector<worker_part> parts;
  /// What the graph expects of each feed.
  std::vector<graph::compiled_feed> feeds;
  std::vector<std::string> fetch_names;
  /// Each node's device and the partitions, for run_metadata.
  std::map<std::string, std::string> placement;
  std::vector<graph::graph> partition_graphs;
  /// Registration: replies still to come, the Recvs of every worker, the
  /// first error, and the runs that wait until the plan is ready.
  size_t replies_left = 0;
  recv_table recvs;
  core::status error;
  bool ready = false;
  std::vector<waiting_run> waiting;
};

using plan_ptr = std::shared_ptr<compiled_plan>;

/// One step in flight, with its run's number and the client's name for
/// it.
struct step_state {
  uint64_t ticket = 0;
  uint64_t run_id = 0;
  caf::typed_response_promise<run_result> promise;
  plan_ptr plan;
  std::vector<core::tensor> fetched;
  std::vector<value_state> fetch_states;
  bool want_metadata = false;
  bool want_partition_graphs = false;
  /// What the workers recorded, when the step is traced (the run asked
  /// for it, `want_stats`, or the session has an observer).
  bool traced = false;
  bool want_stats = false;
  step_stats stats;
  size_t reports_left = 0;
  core::status error;
  bool aborted = false; ///< The other workers were told to abort.
};

std::string signature_key(const run_request& req,
                          const graph::pass_selection& passes) {
  std::string key = passes.to_string() + "|";
  for (const auto& f : req.feeds)
    key += f.first + ",";
  key += "|";
  for (const auto& f : req.fetches)
    key += f + ",";
  key += "|";
  for (const auto& t : req.targets)
    key += t + ",";
  return key;
}

/// The first step id of a master: random, so that the steps of masters
/// sharing workers never collide (TensorFlow's step ids are random too).
uint64_t first_step_id() {
  std::random_device rd;
  auto x = (uint64_t{rd()} << 32) ^ rd();
  return x == 0 ? 1 : x;
}

} // namespace

struct master_state {
  std::shared_ptr<runtime_context> rt;
  std::vector<worker_ref> workers;
  /// Per worker: why it is gone (its process died or its connection
  /// broke); ok while it serves.
  std::vector<core::status> gone;
  session_options options;
  graph::graph g;
  graph::graph_types types;
  /// The devices of g's stateful nodes, kept by every run; placed when a
  /// run first needs them after the graph grew.
  graph::pinned_devices pinned;
  bool pinned_current = false;
  std::map<std::string, plan_ptr> plans;
  std::unordered_map<uint64_t, step_state> steps;
  uint64_t next_step = first_step_id();
  /// The master's number of the last run that arrived.
  uint64_t last_ticket = 0;
  /// Runs cancelled before they arrived (a cancellation and its run come
  /// from different senders), the last `max_early_cancels`.
  std::deque<uint64_t> early_cancels;
  static constexpr size_t max_early_cancels = 256;
  bool closed = false;

  uint64_t new_step_id() {
    auto id = next_step++;
    return id == 0 ? next_step++ : id;
  }

  /// Runs that wait for gone worker `worker` to be connected again, and
  /// per worker whether that is under way.
  struct parked_run {
    waiting_run run;
    size_t worker;
  };
  std::vector<parked_run> parked;
  std::vector<bool> reconnecting;

  /// Drops `plan`'s registrations, on every worker but `skip` (one that
  /// restarted: its registrations died with it).
  void deregister(const compiled_plan& plan, size_t skip = SIZE_MAX) {
    for (const auto& part : plan.parts)
      if (part.handle != 0 && part.worker != skip)
        caf::anon_send(workers[part.worker].handle, deregister_atom::value,
                       part.handle);
  }

  void shutdown() {
    auto gone = core::to_error(
      core::cancelled_error("the session was closed during the step"));
    for (auto& kvp : plans) {
      deregister(*kvp.second);
      for (auto& w : kvp.second->waiting)
        w.promise.deliver(gone);
    }
    plans.clear();
    for (auto& kvp : steps)
      kvp.second.promise.deliver(gone);
    steps.clear();
    for (auto& p : parked)
      p.run.promise.deliver(gone);
    parked.clear();
  }

  ~master_state() {
    shutdown();
  }

  static inline const char* name = "actorflow.master";
};

namespace {

using self_ptr = master_actor::stateful_pointer<master_state>;

/// Why a worker `plan` needs is gone; ok if every one serves.
core::status gone_worker(const master_state& st, const compiled_plan& plan) {
  for (const auto& part : plan.parts)
    if (!st.gone[part.worker].is_ok())
      return st.gone[part.worker];
  return core::status::ok();
}

/// The first worker `plan` needs that is gone but may be connected again
/// (it has an address), or SIZE_MAX.
size_t reconnectable_worker(const master_state& st, const compiled_plan& plan) {
  for (const auto& part : plan.parts)
    if (!st.gone[part.worker].is_ok() && st.workers[part.worker].port != 0)
      return part.worker;
  return SIZE_MAX;
}

/// The graph passes `req` runs: its own choice or the session's.
const graph::pass_selection& selection(const master_state& st,
                                       const run_request& req) {
  return req.passes ? *req.passes : st.options.pass_selection;
}

/// Compiles the graph for `req` (`graph::compile_run`) and groups the
/// partitions by worker.
core::status compile(self_ptr self, const run_request& req, plan_ptr* out) {
  auto& st = self->state;
  auto& rt = *st.rt;
  std::vector<std::string> devices;
  std::map<std::string, size_t> worker_of;
  for (size_t w = 0; w < st.workers.size(); ++w)
    for (const auto& d : st.workers[w].devices) {
      devices.push_back(d);
      worker_of.emplace(d, w);
    }
  if (!st.pinned_current) {
    // Nodes placed before keep their devices; a whole graph that cannot
    // be placed (a node no run reaches asks for a missing device) leaves
    // each run to place its own nodes.
    auto pst = graph::place_stateful(st.g, st.types, rt.ops, devices,
                                     rt.kernels, rt.default_device, &st.pinned);
    if (!pst.is_ok())
      core::log().debug("stateful nodes not pinned: {}", pst.to_string());
    st.pinned_current = true;
  }
  graph::run_signature sig;
  for (const auto& f : req.feeds)
    sig.feeds.push_back(f.first);
  sig.fetches = req.fetches;
  sig.targets = req.targets;
  graph::compile_options opts{
    rt.ops,
    rt.kernels,
    st.options.passes ? *st.options.passes : graph::pass_pipeline::standard(),
    selection(st, req),
    std::move(devices),
    rt.default_device,
    &st.pinned};
  graph::compiled_run run;
  ACTORFLOW_RETURN_IF_ERROR(
    graph::compile_run(st.g, st.types, sig, opts, &run));
  for (const auto& r : run.rewrites)
    core::log().debug("graph pass {}: {}", r.pass, r.what);
  auto plan = std::make_shared<compiled_plan>();
  plan->feeds = std::move(run.feeds);
  plan->fetch_names = std::move(run.fetches);
  plan->placement = std::move(run.placement);
  std::map<size_t, size_t> part_of_worker;
  for (auto& part : run.partitions) {
    auto w = worker_of.at(part.device);
    auto [it, fresh] = part_of_worker.try_emplace(w, plan->parts.size());
    if (fresh) {
      plan->parts.emplace_back();
      plan->parts.back().worker = w;
    }
    auto& wp = plan->parts[it->second];
    for (const auto& node : part.g.nodes()) {
      if (st.options.log_device_placement)
        core::log().info("placement: {} ({}) on {}", node.name, node.op,
                         node.device);
      if (node.op == ops::runtime_op::feed)
        wp.feeds.push_back(
          static_cast<int32_t>(std::get<int64_t>(node.attrs.at("index"))));
    }
    plan->partition_graphs.push_back(part.g);
    wp.set.graphs.push_back(std::move(part.g));
    wp.set.types.push_back(std::move(part.types));
  }
  core::log().debug("compiled run signature with {} nodes on {} workers",
                    run.nodes, plan->parts.size());
  *out = std::move(plan);
  return core::status::ok();
}

void launch(self_ptr self, const plan_ptr& plan, run_request& req,
            caf::typed_response_promise<run_result> promise, uint64_t ticket);

/// Registration of `plan` failed or succeeded on every worker: the runs
/// waiting for it go on or fail.
void plan_settled(self_ptr self, const std::string& key, const plan_ptr& plan) {
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
    launch(self, plan, w.req, std::move(w.promise), w.ticket);
}

/// Tells every worker where the Recvs of all workers are.
void wire(self_ptr self, const std::string& key, const plan_ptr& plan) {
  plan->replies_left = plan->parts.size();
  for (const auto& part : plan->parts)
    self
      ->request(self->state.workers[part.worker].handle, caf::infinite,
                wire_atom::value, part.handle, plan->recvs)
      .then(
        [self, key, plan](done_atom) {
          if (--plan->replies_left == 0)
            plan_settled(self, key, plan);
        },
        [self, key, plan](caf::error& err) {
          if (plan->error.is_ok())
            plan->error = core::from_error(err);
          if (--plan->replies_left == 0)
            plan_settled(self, key, plan);
        });
}

/// Registers each worker's partitions, then wires them.
void register_plan(self_ptr self, const std::string& key,
                   const plan_ptr& plan) {
  plan->error = gone_worker(self->state, *plan);
  if (plan->parts.empty() || !plan->error.is_ok()) {
    plan_settled(self, key, plan);
    return;
  }
  plan->replies_left = plan->parts.size();
  auto settle = [self, key, plan] {
    if (--plan->replies_left > 0)
      return;
    if (plan->error.is_ok())
      wire(self, key, plan);
    else
      plan_settled(self, key, plan);
  };
  for (size_t i = 0; i < plan->parts.size(); ++i) {
    auto& part = plan->parts[i];
    self
      ->request(self->state.workers[part.worker].handle, caf::infinite,
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

core::status check_feeds(const compiled_plan& plan, const run_request& req) {
  for (size_t i = 0; i < req.feeds.size(); ++i) {
    const auto& [name, value] = req.feeds[i];
    const auto& want = plan.feeds[i];
    if (value.dtype() != want.type)
      return core::invalid_argument_error(
               "feed '", name, "' has dtype ", core::to_string(value.dtype()),
               ", the graph expects ", core::to_string(want.type))
        .with_context(want.node, want.op);
    if (!want.shape.compatible_with(value.shape()))
      return core::invalid_argument_error(
               "feed '", name, "' has shape ", value.shape().to_string(),
               ", the placeholder expects ", want.shape.to_string())
        .with_context(want.node, want.op);
  }
  return core::status::ok();
}

void on_report(self_ptr self, uint64_t id, step_report& report,
               const std::string& task);

void finish_step(self_ptr self, uint64_t id, step_state& step);

/// The step failed on one worker: the others cancel what their parts of
/// it wait for (queue operations), so that their reports come.
void abort_step(self_ptr self, uint64_t id, step_state& step);

/// Starts a step of a ready plan: one message per participating worker.
void launch(self_ptr self, const plan_ptr& plan, run_request& req,
            caf::typed_response_promise<run_result> promise, uint64_t ticket) {
  auto& st = self->state;
  auto fst = gone_worker(st, *plan);
  if (fst.is_ok())
    fst = check_feeds(*plan, req);
  if (!fst.is_ok()) {
    promise.deliver(core::to_error(fst));
    return;
  }
  auto id = st.new_step_id();
  auto& step = st.steps[id];
  step.ticket = ticket;
  step.run_id = req.run_id;
  step.promise = std::move(promise);
  step.plan = plan;
  step.want_metadata = req.want_metadata;
  step.want_partition_graphs = req.partition_graphs;
  step.traced = req.trace == trace_level::full || st.options.observer;
  step.want_stats = req.trace == trace_level::full;
  step.stats.step = id;
  step.stats.start_us = step.traced ? now_micros() : 0;
  step.fetched.resize(plan->fetch_names.size());
  step.fetch_states.resize(plan->fetch_names.size(), value_state::failed);
  step.reports_left = plan->parts.size();
  if (plan->parts.empty()) {
    finish_step(self, id, step);
    return;
  }
  for (const auto& part : plan->parts) {
    run_step_msg msg{part.handle, id, {}, step.traced};
    for (auto index : part.feeds)
      msg.feeds.push_back(
        indexed_tensor{index, value_state::live,
                       req.feeds[static_cast<size_t>(index)].second});
    const auto& w = st.workers[part.worker];
    self->request(w.handle, caf::infinite, std::move(msg))
      .then([self, id, task = w.task](
              step_report& report) { on_report(self, id, report, task); },
            [self, id, task = w.task](caf::error& err) {
              step_report report;
              report.step = id;
              report.error = core::from_error(err);
              on_report(self, id, report, task);
            });
  }
}

/// Adds what worker `task` recorded of a traced step to `out`.
void add_stats(step_stats& from, const std::string& task, step_stats* out) {
  for (auto& d : from.devices) {
    d.worker = task;
    out->devices.push_back(std::move(d));
  }
  out->partition_messages += from.partition_messages;
  out->partition_bytes += from.partition_bytes;
  out->process_messages += from.process_messages;
  out->process_bytes += from.process_bytes;
}

void on_report(self_ptr self, uint64_t id, step_report& report,
               const std::string& task) {
  auto i = self->state.steps.find(id);
  if (i == self->state.steps.end())
    return;
  auto& step = i->second;
  for (auto& f : report.fetches) {
    auto idx = static_cast<size_t>(f.index);
    if (f.index < 0 || idx >= step.fetched.size()) {
      report.error = core::internal_error("a worker reported fetch ", f.index,
                                          " of ", step.fetched.size());
      break;
    }
    step.fetched[idx] = std::move(f.value);
    step.fetch_states[idx] = f.state;
  }
  if (step.traced)
    add_stats(report.stats, task, &step.stats);
  // The first error is the step's, but a cancellation the abort caused
  // gives way to the error that caused it (as TensorFlow's StatusGroup
  // prefers root causes).
  bool root_cause = !report.error.is_ok()
                    && (step.error.is_ok()
                        || (step.error.code() == core::errc::cancelled
                            && report.error.code() != core::errc::cancelled));
  if (root_cause) {
    step.error = std::move(report.error);
    if (step.error.device().empty() && self->state.workers.size() > 1)
      step.error
        = step.error.with_context(step.error.node(), step.error.op(), task);
  }
  if (--step.reports_left == 0)
    finish_step(self, id, step);
  else if (!step.error.is_ok())
    abort_step(self, id, step);
}

void abort_step(self_ptr self, uint64_t id, step_state& step) {
  if (step.aborted)
    return;
  step.aborted = true;
  for (const auto& part : step.plan->parts)
    if (self->state.gone[part.worker].is_ok())
      self->send(self->state.workers[part.worker].handle, abort_atom::value,
                 id);
}

void finish_step(self_ptr self, uint64_t id, step_state& step) {
  auto& st = self->state;
  if (step.error.is_ok())
    for (size_t i = 0; i < step.fetched.size(); ++i)
      if (step.fetch_states[i] != value_state::live) {
        step.error = core::invalid_argument_error(
          "fetched tensor '", step.plan->fetch_names[i], "' has no value",
          step.fetch_states[i] == value_state::dead ? " (it is dead)" : "");
        break;
      }
  if (step.traced) {
    step.stats.end_us = now_micros();
    if (st.options.observer) {
      auto observed = guarded("the session's step observer", [&] {
        st.options.observer->on_step(step.stats, step.error);
        return core::status::ok();
      });
      if (!observed.is_ok())
        core::log().warn("{}", observed.message());
    }
  }
  if (step.error.is_ok()) {
    run_result result{std::move(step.fetched), {}};
    if (step.want_metadata)
      result.metadata.placement = step.plan->placement;
    if (step.want_metadata && step.want_partition_graphs)
      result.metadata.partition_graphs = step.plan->partition_graphs;
    if (step.want_metadata && step.want_stats)
      result.metadata.stats = std::move(step.stats);
    step.promise.deliver(std::move(result));
  } else {
    core::log().debug("step {} failed: {}", id, step.error.to_string());
    step.promise.deliver(core::to_error(step.error));
  }
  st.steps.erase(id);
}

/// Worker `dm.source` is gone: the steps and registrations that need it
/// fail now rather than wait for answers that cannot come, and so do later
/// runs that need it.
void on_worker_down(self_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  for (size_t w = 0; w < st.workers.size(); ++w) {
    if (st.workers[w].handle.address() != dm.source || !st.gone[w].is_ok())
      continue;
    st.gone[w] = core::unavailable_error(
      "worker ", st.workers[w].task, " is gone (", caf::to_string(dm.reason),
      "); steps that need it fail");
    core::log().warn("{}", st.gone[w].message());
    std::vector<uint64_t> failed;
    for (auto& [id, step] : st.steps)
      if (!gone_worker(st, *step.plan).is_ok())
        failed.push_back(id);
    for (auto id : failed) {
      auto& step = st.steps.at(id);
      if (step.error.is_ok())
        step.error = st.gone[w];
      abort_step(self, id, step);
      finish_step(self, id, step);
    }
    std::vector<std::pair<std::string, plan_ptr>> unsettled;
    for (auto& [key, plan] : st.plans)
      if (!plan->ready && !gone_worker(st, *plan).is_ok())
        unsettled.emplace_back(key, plan);
    for (auto& [key, plan] : unsettled) {
      if (plan->error.is_ok())
        plan->error = st.gone[w];
      plan_settled(self, key, plan);
    }
  }
}

/// Fails the run that `matches` (a step's or a waiting run's ticket and
/// run id) with `why` at once: its step is aborted on every worker, whose
/// reports come to nothing. Returns whether there was such a run.
template <class Match>
bool end_run(self_ptr self, Match matches, const core::status& why) {
  auto& st = self->state;
  for (auto& [id, step] : st.steps)
    if (matches(step.ticket, step.run_id)) {
      if (step.error.is_ok()) // a failure's root cause stays the error
        step.error = why;
      abort_step(self, id, step);
      finish_step(self, id, step);
      return true;
    }
  for (auto& kvp : st.plans) {
    auto& waiting = kvp.second->waiting;
    for (auto i = waiting.begin(); i != waiting.end(); ++i)
      if (matches(i->ticket, i->req.run_id)) {
        i->promise.deliver(core::to_error(why));
        waiting.erase(i);
        return true;
      }
  }
  for (auto i = st.parked.begin(); i != st.parked.end(); ++i)
    if (matches(i->run.ticket, i->run.req.run_id)) {
      i->run.promise.deliver(core::to_error(why));
      st.parked.erase(i);
      return true;
    }
  return false;
}

/// The client cancelled run `run_id`; if it has not arrived yet, it fails
/// when it does.
void cancel_run(self_ptr self, uint64_t run_id) {
  auto& st = self->state;
  auto why = core::cancelled_error("the run was cancelled");
  if (run_id == 0
      || end_run(
        self, [run_id](uint64_t, uint64_t id) { return id == run_id; }, why))
    return;
  st.early_cancels.push_back(run_id);
  if (st.early_cancels.size() > master_state::max_early_cancels)
    st.early_cancels.pop_front();
}

/// Whether run `run_id` was cancelled before it arrived (forgotten now).
bool cancelled_early(master_state& st, uint64_t run_id) {
  auto i = std::find(st.early_cancels.begin(), st.early_cancels.end(), run_id);
  if (run_id == 0 || i == st.early_cancels.end())
    return false;
  st.early_cancels.erase(i);
  return true;
}

void begin_run(self_ptr self, waiting_run run);

/// Worker `w` answered again (a restarted task) as `hdl`: the session's
/// plans that used it are dropped (their registrations there died with
/// the process) and the runs that waited for it begin again.
void reconnected(self_ptr self, size_t w, worker_actor hdl) {
  auto& st = self->state;
  core::log().info("worker {} is back; its partitions are registered again",
                   st.workers[w].task);
  st.workers[w].handle = std::move(hdl);
  st.gone[w] = core::status::ok();
  self->monitor(st.workers[w].handle);
  for (auto i = st.plans.begin(); i != st.plans.end();) {
    const auto& parts = i->second->parts;
    bool uses = std::any_of(parts.begin(), parts.end(),
                            [w](const auto& p) { return p.worker == w; });
    if (uses && i->second->ready) {
      st.deregister(*i->second, w);
      i = st.plans.erase(i);
    } else {
      ++i;
    }
  }
}

/// Connecting to worker `w` again ended: the runs parked for it begin
/// again, or fail with `failure`.
void reconnect_settled(self_ptr self, size_t w, const core::status& failure) {
  auto& st = self->state;
  st.reconnecting[w] = false;
  std::vector<waiting_run> runs;
  for (auto i = st.parked.begin(); i != st.parked.end();)
    if (i->worker == w) {
      runs.push_back(std::move(i->run));
      i = st.parked.erase(i);
    } else {
      ++i;
    }
  for (auto& run : runs)
    if (failure.is_ok())
      begin_run(self, std::move(run));
    else
      run.promise.deliver(core::to_error(failure));
}

/// Connects to gone worker `w` at its address again, checks that it is
/// the same task (its devices) and takes it back.
void reconnect(self_ptr self, size_t w) {
  auto& st = self->state;
  if (st.reconnecting[w])
    return;
  st.reconnecting[w] = true;
  const auto& ref = st.workers[w];
  auto fail = [self, w](const std::string& why) {
    auto& st = self->state;
    reconnect_settled(
      self, w,
      core::unavailable_error(st.gone[w].message(),
                              "; connecting to it again: ", why));
  };
  auto timeout = ref.connect_timeout;
  auto& sys = self->home_system();
  auto connector = ref.tls ? sys.openssl_manager().actor_handle()
                           : sys.middleman().actor_handle();
  self
    ->request(connector, timeout, caf::connect_atom::value, ref.host, ref.port)
    .then(
      [self, w, fail, timeout](const caf::node_id&, caf::strong_actor_ptr& ptr,
                               const std::set<std::string>&) {
        if (!ptr) {
          fail("nothing is published there");
          return;
        }
        auto hdl = caf::actor_cast<worker_actor>(std::move(ptr));
        self->request(hdl, timeout, devices_atom::value)
          .then(
            [self, w, hdl, fail](const std::vector<std::string>& devices) {
              if (devices != self->state.workers[w].devices) {
                fail("it has other devices: is it started with that task?");
                return;
              }
              reconnected(self, w, hdl);
              reconnect_settled(self, w, core::status::ok());
            },
            [self, fail](caf::error& err) {
              fail(self->home_system().render(err));
            });
      },
      [self, fail](caf::error& err) { fail(self->home_system().render(err)); });
}

/// Compiles (once per signature) and registers the run's plan, then
/// launches its step; a run that needs a worker that is gone waits for it
/// to be connected again.
void begin_run(self_ptr self, waiting_run run) {
  auto& st = self->state;
  auto key = signature_key(run.req, selection(st, run.req));
  auto& plan = st.plans[key];
  bool fresh = !plan;
  if (fresh) {
    auto cst = guarded("compiling the graph",
                       [&] { return compile(self, run.req, &plan); });
    if (!cst.is_ok()) {
      st.plans.erase(key);
      run.promise.deliver(core::to_error(cst));
      return;
    }
  }
  auto w = reconnectable_worker(st, *plan);
  if (w != SIZE_MAX && (plan->ready || fresh)) {
    if (fresh)
      st.plans.erase(key);
    st.parked.push_back(master_state::parked_run{std::move(run), w});
    reconnect(self, w);
    return;
  }
  if (!plan->ready) {
    plan->waiting.push_back(std::move(run));
    if (fresh)
      register_plan(self, key, plan_ptr{plan});
    return;
  }
  launch(self, plan, run.req, std::move(run.promise), run.ticket);
}

caf::result<run_result> start_step(self_ptr self, run_request& req) {
  auto& st = self->state;
  if (st.closed)
    return core::to_error(
      core::failed_precondition_error("the session is closed"));
  if (cancelled_early(st, req.run_id))
    return core::to_error(core::cancelled_error("the run was cancelled"));
  if (req.timeout_ms < 0)
    return core::to_error(core::invalid_argument_error(
      "a run's timeout must be >= 0 ms, got ", req.timeout_ms));
  auto promise = self->make_response_promise<run_result>();
  auto ticket = ++st.last_ticket;
  if (req.timeout_ms > 0)
    self->delayed_send(self, std::chrono::milliseconds{req.timeout_ms},
                       deadline_atom::value, ticket);
  begin_run(self, waiting_run{std::move(req), promise, ticket});
  return promise;
}

master_actor::behavior_type master_impl(self_ptr self,
                                        std::shared_ptr<runtime_context> rt,
                                        std::vector<worker_ref> workers,
                                        session_options options) {
  self->state.rt = std::move(rt);
  self->state.workers = std::move(workers);
  self->state.gone.resize(self->state.workers.size());
  self->state.reconnecting.resize(self->state.workers.size());
  self->state.options = options;
  // A remote worker's death (or its connection's) reaches the master as a
  // down message of its proxy.
  for (const auto& w : self->state.workers)
    if (w.handle && w.handle->node() != self->node())
      self->monitor(w.handle);
  self->set_down_handler(
    [self](caf::down_msg& dm) { on_worker_down(self, dm); });
  return {
    [self](extend_atom, graph::graph& more) -> caf::result<done_atom> {
      auto& st = self->state;
      if (st.closed)
        return core::to_error(
          core::failed_precondition_error("the session is closed"));
      graph::graph merged = st.g;
      graph::graph_types types;
      auto est = guarded("extending the graph", [&] {
        ACTORFLOW_RETURN_IF_ERROR(merged.extend(more));
        return graph::validate(merged, st.rt->ops, &types);
      });
      if (!est.is_ok())
        return core::to_error(est);
      st.g = std::move(merged);
      st.types = std::move(types);
      st.pinned_current = false;
      return done_atom::value;
    },
    [self](run_atom, run_request& req) { return start_step(self, req); },
    [self](abort_atom, uint64_t id) {
      auto i = self->state.steps.find(id);
      if (i != self->state.steps.end())
        abort_step(self, id, i->second);
    },
    [self](cancel_atom, uint64_t run_id) { cancel_run(self, run_id); },
    [self](deadline_atom, uint64_t ticket) {
      end_run(
        self, [ticket](uint64_t t, uint64_t) { return t == ticket; },
        core::deadline_exceeded_error(
          "the run did not finish within its timeout; its step was aborted "
          "on every worker"));
    },
    [self](close_atom) -> done_atom {
      self->state.shutdown();
      self->state.closed = true;
      return done_atom::value;
    },
  };
}

} // namespace

master_actor spawn_master(caf::actor_system& sys,
                          std::shared_ptr<runtime_context> rt,
                          std::vector<worker_ref> workers,
                          session_options options) {
  return sys.spawn(master_impl, std::move(rt), std::move(workers), options);
}

} // namespace actorflow::actors
