#pragma once

#include "actorflow/ops/op_registry.hpp"
#include "compile/graph_index.hpp"
#include "worker/partition_plan.hpp"

namespace actorflow::actors::detail {

/// Takes out of the dataflow what only forwards a value and what nothing
/// reads any more, as TensorFlow's graph optimizer removes identities and
/// unused nodes before its executor runs. Such a node is sent nothing and
/// never fires (`node_item::skipped`):
///
/// - the plumbing of loops and conds that only forwards: a LoopCond, and
///   an Identity on a Switch's output (a branch's or a loop body's input
///   or pivot), with no constant input and no control edge left: its
///   consumers read its input instead (the same tag and the same
///   deadness, one firing less per tag). Other Identities stay: a user
///   may have put them there to be run and traced;
/// - a stateless kernel that had readers and has none left: the pivot of
///   a loop or cond whose anchored constants were all bound, and the
///   Switch that fed only that pivot.
void skip_idle_nodes(partition_plan& plan, const graph::graph_index& index,
                     const ops::op_registry& ops);

} // namespace actorflow::actors::detail
