#pragma once

// Internal: the pieces every op function of the builder API is made of.

#include <string>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph::detail {

/// The first output of a node, or an invalid one if it failed.
inline output first(std::vector<output> outs) {
  return outs.empty() ? output{} : std::move(outs.front());
}

/// A node of `op` on `inputs` with attr T from the first input.
inline output typed(const scope& s, const char* op,
                    const std::vector<output>& inputs,
                    core::attr_map attrs = {}) {
  if (!inputs.empty())
    attrs.emplace("T", inputs.front().dtype());
  return first(s.add_node(op, op, inputs, std::move(attrs)));
}

/// The device the node of `x` requests (empty: none, or no such node).
inline std::string requested_device(const scope& s, const output& x) {
  const auto* def = s.graph_def().find(x.node_name());
  return def == nullptr ? std::string{} : def->device;
}

/// A constant node named after `hint` holding `values` as a vector (or a
/// scalar, with `scalar`) of `type` (int32 or int64).
output int_constant(const scope& s, const std::string& hint,
                    const std::vector<int64_t>& values, bool scalar = false,
                    core::dtype type = core::dtype::int64);

} // namespace actorflow::graph::detail
