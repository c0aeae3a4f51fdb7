#pragma once

/// The first step of a compile: a run signature's feeds and fetches become
/// nodes, and the graph is pruned to what they need.

#include "actorflow/core/status.hpp"
#include "actorflow/graph/compile_run.hpp"

namespace actorflow::graph {

/// Replaces each fed tensor by a `_Feed` node (attr `index` = its position
/// in `feeds`), adds a `_Fetch` node per fetch (`index` likewise), and
/// prunes `in` to the nodes that fetches and targets need: a fed tensor cuts
/// off its producers. `in` must be validated; `types` are its types.
core::status rewrite_for_run(const graph& in, const graph_types& types,
                             const run_signature& sig, graph* out);

} // namespace actorflow::graph
