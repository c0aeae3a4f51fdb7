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

/// The loop condition: builds a bool scalar from the loop variables.
using loop_cond_fn
  = std::function<output(const scope&, const std::vector<output>&)>;

/// The loop body: builds the next values of the loop variables.
using loop_body_fn = std::function<std::vector<output>(
  const scope&, const std::vector<output>&)>;

/// How `while_loop` builds its loop.
struct while_options {
  /// Iterations that may run at once.
  int64_t parallel_iterations = 10;
  /// Stops after this many iterations even if the condition still holds.
  std::optional<int64_t> maximum_iterations;
  /// Shapes the loop variables keep over iterations, where the body
  /// changes them (e.g. {-1, 4} for a matrix that grows by rows); by
  /// default each keeps its initial shape.
  std::vector<core::shape> shape_invariants;
};

/// `while (cond(vars)) vars = body(vars);` inside the graph, lowered to
/// Enter/Merge/LoopCond/Switch/NextIteration/Exit as `tf.while_loop`
/// lowers it; returns the final values. Tensors the condition or the body
/// use from outside enter the loop as loop constants; nodes of the body
/// with no input from the loop run once per iteration.
std::vector<output> while_loop(const scope& s, const loop_cond_fn& cond,
                               const loop_body_fn& body,
                               const std::vector<output>& loop_vars,
                               const while_options& options = {});

} // namespace actorflow::graph
