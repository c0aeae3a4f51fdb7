#pragma once

// Gradients against central differences, for the tests of loops, arrays
// and recurrent cells: (f(x + h) - f(x - h)) / 2h for each element of a
// float64 tensor.

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "actorflow/core/tensor.hpp"

namespace actorflow::test {

/// A copy of `t` (float64) with element `i` moved by `delta`.
inline core::tensor moved(const core::tensor& t, int64_t i, double delta) {
  core::tensor copy;
  EXPECT_TRUE(t.deep_copy(&copy).is_ok());
  copy.mutable_data<double>()[i] += delta;
  return copy;
}

/// The largest absolute difference between `grad` and the central
/// differences of the scalar function `loss_at` around `x`.
template <class F>
double worst_gradient_error(const core::tensor& x, const core::tensor& grad,
                            F loss_at, double h = 1e-6) {
  double worst = 0;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    auto numeric
      = (loss_at(moved(x, i, h)) - loss_at(moved(x, i, -h))) / (2 * h);
    worst = std::max(worst, std::abs(grad.data<double>()[i] - numeric));
  }
  return worst;
}

} // namespace actorflow::test
