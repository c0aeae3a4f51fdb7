// A step of a ready plan: one message per worker to start it, one report
// per worker to end it, the client answered with the fetches or the
// step's root-cause error.

#include "master/steps.hpp"

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/logging.hpp"
#include "guarded.hpp"
#include "master/compile.hpp"
#include "transport/peer_guard.hpp"

namespace actorflow::actors::detail {

namespace {

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
    deliver_step(self, id, step);
  else if (!step.error.is_ok())
    abort_step(self, id, step);
}

/// Whether `req`'s feeds have the dtypes and shapes `plan` expects.
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

} // namespace

void abort_step(self_ptr self, uint64_t id, step_state& step) {
  if (step.aborted)
    return;
  step.aborted = true;
  for (const auto& part : step.plan->parts)
    if (self->state.gone[part.worker].is_ok())
      self->send(worker_of(self->state.workers[part.worker]), abort_atom::value,
                 id);
}

void deliver_step(self_ptr self, uint64_t id, step_state& step) {
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

/// Starts a step of a ready plan: one message per participating worker.
void launch_step(self_ptr self, const plan_ptr& plan, run_request& req,
                 caf::typed_response_promise<run_result> promise,
                 uint64_t ticket) {
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
    deliver_step(self, id, step);
    return;
  }
  for (const auto& part : plan->parts) {
    run_step_msg msg{part.handle, id, {}, step.traced};
    for (auto index : part.feeds)
      msg.feeds.push_back(
        indexed_tensor{index, value_state::live,
                       req.feeds[static_cast<size_t>(index)].second});
    const auto& w = st.workers[part.worker];
    self->request(worker_of(w), caf::infinite, std::move(msg))
      .then(
        [self, id, task = w.task](step_report& report) {
          if (detail::refuse_malformed(self, report.wire_error))
            report.error = std::move(report.wire_error);
          on_report(self, id, report, task);
        },
        [self, id, task = w.task](caf::error& err) {
          step_report report;
          report.step = id;
          report.error = core::from_error(err);
          on_report(self, id, report, task);
        });
  }
}

} // namespace actorflow::actors::detail
