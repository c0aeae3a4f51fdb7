#pragma once

// Internal: the gradient of a while loop as a whole, and the walk of
// `gradients` it runs again inside the backward loop's body.

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph::detail {

struct loop_record;

/// `graph::gradients`; with `stop_at_xs`, gradients do not flow on through
/// an x to what made it (a loop body's inputs, in its backward loop).
std::vector<std::optional<output>>
gradients_between(const scope& s, const std::vector<output>& ys,
                  const std::vector<output>& xs,
                  const std::vector<output>& grad_ys, bool stop_at_xs);

/// Builds the backward loop of `loop` (reference §4.2) from the gradients
/// of its Exits (`exit_grads`, invalid where none), and returns in
/// `sources` the gradient of each tensor that entered the loop: the
/// initial values of its variables and the loop constants captured from
/// outside for which `wanted` holds (paired with their gradient, invalid
/// where none). The backward loop computes nothing for the other loop
/// constants.
core::status loop_gradient(const scope& s, const loop_record& loop,
                           const std::vector<output>& exit_grads,
                           const std::function<bool(const output&)>& wanted,
                           std::vector<std::pair<output, output>>* sources);

} // namespace actorflow::graph::detail
