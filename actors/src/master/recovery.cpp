// Lost workers: the steps and registrations that need one fail at once;
// a worker with an address is connected to again when a run needs it.

#include "master/recovery.hpp"

#include <limits>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/logging.hpp"
#include "master/registration.hpp"
#include "master/steps.hpp"
#include "transport/worker_link.hpp"

namespace actorflow::actors::detail {

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
    st.rt->counters()->set_worker_up(st.workers[w].task, false);
    std::vector<uint64_t> failed;
    for (auto& [id, step] : st.steps)
      if (!gone_worker(st, *step.plan).is_ok())
        failed.push_back(id);
    // A peer that shut down cleanly while no step needed it (a ps at the
    // end of training) is news, not an alarm.
    auto clean = dm.reason == caf::exit_reason::user_shutdown
                 || dm.reason == caf::exit_reason::normal;
    if (clean && failed.empty())
      core::log().info("worker {} has shut down; steps that need it fail",
                       st.workers[w].task);
    else
      core::log().warn("{}", st.gone[w].message());
    for (auto id : failed) {
      auto& step = st.steps.at(id);
      if (step.error.is_ok())
        step.error = st.gone[w];
      abort_step(self, id, step);
      deliver_step(self, id, step);
    }
    std::vector<std::pair<std::string, plan_ptr>> unsettled;
    for (auto& [key, plan] : st.plans)
      if (!plan->ready && !gone_worker(st, *plan).is_ok())
        unsettled.emplace_back(key, plan);
    for (auto& [key, plan] : unsettled) {
      if (plan->error.is_ok())
        plan->error = st.gone[w];
      settle_plan(self, key, plan);
    }
  }
}

namespace {

/// Worker `w` answered again (a restarted task) as `hdl`: the session's
/// plans that used it are dropped (their registrations there died with
/// the process) and the runs that waited for it begin again.
void reconnected(self_ptr self, size_t w, worker_actor hdl) {
  auto& st = self->state;
  core::log().info("worker {} is back; its partitions are registered again",
                   st.workers[w].task);
  st.workers[w].handle = caf::actor_cast<caf::actor>(hdl);
  st.gone[w] = core::status::ok();
  st.rt->counters()->set_worker_up(st.workers[w].task, true);
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
/// again (`begin`), or fail with `failure`.
void reconnect_settled(self_ptr self, size_t w, const core::status& failure,
                       run_starter begin) {
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
      begin(self, std::move(run));
    else
      run.promise.deliver(core::to_error(failure));
}

/// How long one try at connecting to a gone worker again may take.
constexpr std::chrono::milliseconds reconnect_try{2000};

/// Connects to gone worker `w` at its address again and checks that it
/// is the same task (its devices). Tries that time out are followed by
/// others until `deadline`: a worker that has not yet seen the end of the
/// last connection from this process (a dropped link) ignores the
/// handshake of the new one until it has, and CAF drops a connection
/// whose handshake is late (`timed_out`). Any other failure -- the port
/// refuses, the devices differ -- ends it at once.
void try_reconnect(self_ptr self, size_t w,
                   std::chrono::steady_clock::time_point deadline,
                   run_starter begin) {
  auto& st = self->state;
  const auto& ref = st.workers[w];
  auto fail = [self, w, deadline, begin](const caf::error& err,
                                         const std::string& why) {
    if (timed_out(err) && std::chrono::steady_clock::now() < deadline) {
      try_reconnect(self, w, deadline, begin);
      return;
    }
    auto& st = self->state;
    reconnect_settled(
      self, w,
      core::unavailable_error(st.gone[w].message(),
                              "; connecting to it again: ", why),
      begin);
  };
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
    deadline - std::chrono::steady_clock::now());
  retry_policy retry;
  retry.attempts = std::numeric_limits<int>::max();
  retry.try_timeout
    = std::max(std::chrono::milliseconds{1}, std::min(left, reconnect_try));
  retry.within = std::max(std::chrono::milliseconds{1}, left);
  auto timeout = retry.try_timeout;
  self
    ->request(
      connect_worker(self->home_system(), ref.host, ref.port, ref.tls, retry),
      caf::infinite, caf::connect_atom::value)
    .then(
      [self, w, fail, timeout, begin](const worker_actor& hdl) {
        self->request(hdl, timeout, devices_atom::value)
          .then(
            [self, w, hdl, fail,
             begin](const std::vector<std::string>& devices) {
              if (devices != self->state.workers[w].devices) {
                fail({}, "it has other devices: is it started with that "
                         "task?");
                return;
              }
              reconnected(self, w, hdl);
              reconnect_settled(self, w, core::status::ok(), begin);
            },
            [self, fail](caf::error& err) {
              fail(err, self->home_system().render(err));
            });
      },
      [self, fail](caf::error& err) {
        fail(err, connect_error_text(self->home_system(), err));
      });
}

} // namespace

/// Connects to gone worker `w` at its address again, checks that it is
/// the same task (its devices) and takes it back; gives up after the
/// worker's connect timeout.
void reconnect_worker(self_ptr self, size_t w, run_starter begin) {
  auto& st = self->state;
  if (st.reconnecting[w])
    return;
  st.reconnecting[w] = true;
  try_reconnect(
    self, w, std::chrono::steady_clock::now() + st.workers[w].connect_timeout,
    begin);
}

} // namespace actorflow::actors::detail
