#pragma once

/// The master's compiling part (master/compile.cpp): run signatures to
/// plans grouped by worker.

#include "master/state.hpp"

namespace actorflow::actors::detail {

/// The key of `req`'s run signature: its feeds, fetches, targets and
/// graph passes.
std::string signature_key(const run_request& req,
                          const graph::pass_selection& passes);

/// The graph passes `req` runs: its own choice or the session's.
const graph::pass_selection& pass_selection_of(const master_state& st,
                                               const run_request& req);

/// Compiles the graph for `req` (`graph::compile_run`) and groups the
/// partitions by worker.
core::status compile_plan(self_ptr self, const run_request& req, plan_ptr* out);

} // namespace actorflow::actors::detail
