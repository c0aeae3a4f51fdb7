#pragma once

// Gradients a session computes against central differences of the loss it
// computes: the check of tensor_array_test and list_gradients_test.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/output.hpp"
#include "common/central_differences.hpp"

namespace actorflow::test {

/// Expects the gradients `g` of the float64 scalar `loss` with respect to
/// the placeholders `x` and `w`, at `xt` and `wt`, to match central
/// differences within 1e-8.
inline void expect_gradients_match(
  actors::session& sess, const graph::output& loss, const graph::output& x,
  const graph::output& w, const std::vector<std::optional<graph::output>>& g,
  const core::tensor& xt, const core::tensor& wt, const std::string& what) {
  std::vector<core::tensor> grads;
  auto st = sess.run({{x.name(), xt}, {w.name(), wt}},
                     {g.at(0)->name(), g.at(1)->name()}, {}, &grads);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  auto loss_at = [&](const core::tensor& xa, const core::tensor& wa) {
    std::vector<core::tensor> out;
    EXPECT_TRUE(
      sess.run({{x.name(), xa}, {w.name(), wa}}, {loss.name()}, {}, &out)
        .is_ok());
    return out.empty() ? NAN : out[0].scalar_value<double>();
  };
  EXPECT_LT(
    worst_gradient_error(xt, grads[0],
                         [&](const core::tensor& v) { return loss_at(v, wt); }),
    1e-8)
    << "d/dx" << what << " " << grads[0].debug_string();
  EXPECT_LT(
    worst_gradient_error(wt, grads[1],
                         [&](const core::tensor& v) { return loss_at(xt, v); }),
    1e-8)
    << "d/dw" << what << " " << grads[1].debug_string();
}

} // namespace actorflow::test
