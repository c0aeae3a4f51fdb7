#pragma once

/// Conditionals and loops inside the graph, lowered to TensorFlow's v1
/// primitives (Switch, Merge, Enter, Exit, NextIteration, LoopCond) as
/// `tf.cond` and `tf.while_loop` lower them; docs/control-flow.md has the
/// rules the runtime follows.

#include <functional>
#include <optional>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// Builds one branch of a `cond` in the scope it is given and returns the
/// branch's results.
using branch_fn = std::function<std::vector<output>(const scope&)>;

/// pred ? then_fn() : else_fn(), inside the graph. Only the taken branch
/// runs (its side effects included); tensors the branches use from outside
/// are switched on `pred` automatically. The branches must return as many
/// results, of the same dtypes; each result is the Merge of the two.
std::vector<output> cond(const scope& s, const output& pred,
                         const branch_fn& then_fn, const branch_fn& else_fn);

} // namespace actorflow::graph
