#include "master/master.hpp"

#include <algorithm>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/logging.hpp"
#include "guarded.hpp"
#include "master/compile.hpp"
#include "master/recovery.hpp"
#include "master/registration.hpp"
#include "master/steps.hpp"

namespace actorflow::actors {

namespace detail {

namespace {

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
      deliver_step(self, id, step);
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

/// Compiles (once per signature) and registers the run's plan, then
/// launches its step; a run that needs a worker that is gone waits for it
/// to be connected again.
void begin_run(self_ptr self, waiting_run run) {
  auto& st = self->state;
  auto key = signature_key(run.req, pass_selection_of(st, run.req));
  auto& plan = st.plans[key];
  bool fresh = !plan;
  if (fresh) {
    auto cst = guarded("compiling the graph",
                       [&] { return compile_plan(self, run.req, &plan); });
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
    reconnect_worker(self, w, begin_run);
    return;
  }
  if (!plan->ready) {
    plan->waiting.push_back(std::move(run));
    if (fresh)
      register_plan(self, key, plan_ptr{plan});
    return;
  }
  launch_step(self, plan, run.req, std::move(run.promise), run.ticket);
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
    if (w.handle && w.handle->node() != self->node()) {
      self->monitor(w.handle);
      self->state.rt->counters()->set_worker_up(w.task, true);
    }
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
        return graph::validate(merged, st.rt->ops(), &types);
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

} // namespace detail

master_actor spawn_master(caf::actor_system& sys,
                          std::shared_ptr<runtime_context> rt,
                          std::vector<worker_ref> workers,
                          session_options options) {
  return sys.spawn(detail::master_impl, std::move(rt), std::move(workers),
                   options);
}

} // namespace actorflow::actors
