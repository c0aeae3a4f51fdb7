#pragma once

/// The master's steps part (master/steps.cpp): a step's launch, its
/// workers' reports and the client's answer.

#include <cstdint>

#include <caf/typed_response_promise.hpp>

#include "master/state.hpp"

namespace actorflow::actors::detail {

/// Starts a step of a ready plan: one message per participating worker.
void launch_step(self_ptr self, const plan_ptr& plan, run_request& req,
                 caf::typed_response_promise<run_result> promise,
                 uint64_t ticket);

/// The step failed on one worker: the others cancel what their parts of
/// it wait for (queue operations), so that their reports come.
void abort_step(self_ptr self, uint64_t id, step_state& step);

/// Answers the client with the step's fetches or its error and forgets
/// the step.
void deliver_step(self_ptr self, uint64_t id, step_state& step);

} // namespace actorflow::actors::detail
