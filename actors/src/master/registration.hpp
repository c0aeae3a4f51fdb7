#pragma once

/// The master's registration part (master/registration.cpp): a compiled
/// plan registered with its workers and their Sends routed.

#include <string>

#include "master/state.hpp"

namespace actorflow::actors::detail {

/// Registers each worker's partitions, then routes their Sends; the runs
/// waiting for `plan` go on once it is ready (or fail).
void register_plan(self_ptr self, const std::string& key, const plan_ptr& plan);

/// Registration of `plan` failed or succeeded on every worker: the runs
/// waiting for it go on or fail.
void settle_plan(self_ptr self, const std::string& key, const plan_ptr& plan);

} // namespace actorflow::actors::detail
