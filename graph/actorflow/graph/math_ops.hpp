#pragma once

/// Op functions for math ops: element-wise, reductions, matrices, checks.
/// Each takes the scope to build in first and names its node after the op.

#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

output neg(const scope& s, const output& x);
output abs(const scope& s, const output& x);
output sign(const scope& s, const output& x);
output square(const scope& s, const output& x);
output exp(const scope& s, const output& x);
output log(const scope& s, const output& x);
output log1p(const scope& s, const output& x);
output sqrt(const scope& s, const output& x);
output rsqrt(const scope& s, const output& x);
output floor(const scope& s, const output& x);
output ceil(const scope& s, const output& x);
output round(const scope& s, const output& x);
output tanh(const scope& s, const output& x);
output sigmoid(const scope& s, const output& x);
/// The error function, 2/sqrt(pi) * integral of exp(-t^2) from 0 to x.
output erf(const scope& s, const output& x);
/// 1 - erf(x), without the cancellation for large x.
output erfc(const scope& s, const output& x);
output logical_not(const scope& s, const output& x);

output div(const scope& s, const output& x, const output& y);
output floor_div(const scope& s, const output& x, const output& y);
/// The remainder of truncating division (C's %, TensorFlow's Mod).
output mod(const scope& s, const output& x, const output& y);
/// The remainder with the divisor's sign (Python's %).
output floor_mod(const scope& s, const output& x, const output& y);
output pow(const scope& s, const output& x, const output& y);
output maximum(const scope& s, const output& x, const output& y);
output minimum(const scope& s, const output& x, const output& y);
output greater(const scope& s, const output& x, const output& y);
output greater_equal(const scope& s, const output& x, const output& y);
output less(const scope& s, const output& x, const output& y);
output less_equal(const scope& s, const output& x, const output& y);
output equal(const scope& s, const output& x, const output& y);
output not_equal(const scope& s, const output& x, const output& y);
output logical_and(const scope& s, const output& x, const output& y);
output logical_or(const scope& s, const output& x, const output& y);

/// condition ? t : e, element-wise (or whole, for a scalar condition).
output select(const scope& s, const output& condition, const output& t,
              const output& e);
/// condition ? t : e with the three broadcast together (TensorFlow's
/// where with three arguments).
output select_v2(const scope& s, const output& condition, const output& t,
                 const output& e);
output cast(const scope& s, const output& x, core::dtype to);
/// The running sum of `x` along `axis`: from the end with `reverse`, each
/// element left out of its own with `exclusive`.
output cumsum(const scope& s, const output& x, int64_t axis,
              bool exclusive = false, bool reverse = false);
/// The running product, as cumsum.
output cumprod(const scope& s, const output& x, int64_t axis,
               bool exclusive = false, bool reverse = false);
output add_n(const scope& s, const std::vector<output>& xs);

/// Reductions over `axes` (negative ones count from the end); as in
/// TensorFlow's kernels, an empty list reduces nothing.
output reduce_sum(const scope& s, const output& x,
                  const std::vector<int64_t>& axes, bool keep_dims = false);
output reduce_mean(const scope& s, const output& x,
                   const std::vector<int64_t>& axes, bool keep_dims = false);
output reduce_max(const scope& s, const output& x,
                  const std::vector<int64_t>& axes, bool keep_dims = false);
output reduce_min(const scope& s, const output& x,
                  const std::vector<int64_t>& axes, bool keep_dims = false);
output reduce_prod(const scope& s, const output& x,
                   const std::vector<int64_t>& axes, bool keep_dims = false);
output reduce_all(const scope& s, const output& x,
                  const std::vector<int64_t>& axes, bool keep_dims = false);
output reduce_any(const scope& s, const output& x,
                  const std::vector<int64_t>& axes, bool keep_dims = false);
output arg_max(const scope& s, const output& x, int64_t axis,
               core::dtype output_type = core::dtype::int64);
output arg_min(const scope& s, const output& x, int64_t axis,
               core::dtype output_type = core::dtype::int64);

/// x @ y per matrix of the last two dimensions, batch dimensions
/// broadcast; adj_x/adj_y transpose.
output batch_matmul(const scope& s, const output& x, const output& y,
                    bool adj_x = false, bool adj_y = false);
output matrix_inverse(const scope& s, const output& x, bool adjoint = false);
output matrix_determinant(const scope& s, const output& x);

/// Passes `x` on, failing the step if it holds NaN or Inf.
output check_numerics(const scope& s, const output& x,
                      const std::string& message);

} // namespace actorflow::graph
