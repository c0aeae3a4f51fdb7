// The master's state: its start, its end (every run and step failed,
// every registration dropped), and the queries every part makes of it.

#include "master/state.hpp"

#include <random>

#include <caf/send.hpp>

#include "actorflow/core/caf_error.hpp"

namespace actorflow::actors::detail {

namespace {

/// The first step id of a master: random, so that the steps of masters
/// sharing workers never collide (TensorFlow's step ids are random too).
uint64_t first_step_id() {
  std::random_device rd;
  auto x = (uint64_t{rd()} << 32) ^ rd();
  return x == 0 ? 1 : x;
}

} // namespace

master_state::master_state() : next_step(first_step_id()) {
  // nop
}

void master_state::shutdown() {
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

master_state::~master_state() {
  shutdown();
}

void master_state::deregister(const compiled_plan& plan, size_t skip) {
  for (const auto& part : plan.parts)
    if (part.handle != 0 && part.worker != skip)
      caf::anon_send(worker_of(workers[part.worker]), deregister_atom::value,
                     part.handle);
}

core::status gone_worker(const master_state& st, const compiled_plan& plan) {
  for (const auto& part : plan.parts)
    if (!st.gone[part.worker].is_ok())
      return st.gone[part.worker];
  return core::status::ok();
}

size_t reconnectable_worker(const master_state& st, const compiled_plan& plan) {
  for (const auto& part : plan.parts)
    if (!st.gone[part.worker].is_ok() && st.workers[part.worker].port != 0)
      return part.worker;
  return SIZE_MAX;
}

} // namespace actorflow::actors::detail
