#pragma once

// Internal: what tensor_array, the functional builders (map_fn, scan,
// folds) and dynamic_rnn share: small int32 constants, dimensions as
// scalars, and the loop over an index that writes one element of each
// result array per iteration.

#include <functional>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"
#include "actorflow/graph/tensor_array.hpp"

namespace actorflow::graph::detail {

/// An int32 scalar constant named after `hint`.
output int32_scalar(const scope& s, const char* hint, int64_t v);

/// Dimension `d` of `x` as an int32 scalar: a constant where known.
output dim_of(const scope& s, const output& x, int d);

/// Dimensions 1.. of `s` (one row's shape), or unknown.
core::shape row_shape(const core::shape& s);

/// What `index_loop` gives back: the carried values after the loop and the
/// result arrays at their final flow.
struct index_loop_out {
  std::vector<output> carried;
  std::vector<tensor_array> results;
};

/// One iteration: from the body's scope, the index and the carried
/// values, the next carried values followed by one result per array.
using index_step_fn = std::function<std::vector<output>(
  const scope&, const output& index, const std::vector<output>& carried)>;

/// A while loop over i in [start, n) (an int32 scalar n), the index being
/// i, or n - 1 - i with `reverse`; carries `carried` and writes result k of
/// each step at the index into an array of `result_types[k]` and n
/// elements.
index_loop_out index_loop(const scope& s, const output& n, int64_t start,
                          bool reverse, const std::vector<output>& carried,
                          const std::vector<core::dtype>& result_types,
                          int64_t parallel_iterations,
                          const index_step_fn& step);

} // namespace actorflow::graph::detail
