#pragma once

/// Automatic differentiation: graph::gradients extends a graph with the
/// nodes that compute derivatives, as TensorFlow's tf.gradients.

#include <optional>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// Adds nodes computing d(sum of ys)/dx for each x of `xs` and returns
/// them, in the order of `xs`.
///
/// `grad_ys` (empty, or one per y) weights each y's gradient; ones by
/// default. Gradients flowing into one tensor from several consumers are
/// summed. An x that no y depends on through floating-point edges gets
/// `std::nullopt`: StopGradient, integer and boolean paths carry no
/// gradient. Gradient nodes are named `gradients/<node>_grad/...` and are
/// placed on their forward node's device.
///
/// An op on the way without a gradient function records an error naming
/// the node and op in `s.status()` and returns nullopt for every x.
std::vector<std::optional<output>>
gradients(const scope& s, const std::vector<output>& ys,
          const std::vector<output>& xs,
          const std::vector<output>& grad_ys = {});

} // namespace actorflow::graph
