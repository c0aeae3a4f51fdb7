#pragma once

// The weights of a small float64 MLP (3 -> 5 -> 2) that several tests train
// a few steps of: fixed values, so runs can be compared exactly.

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::test {

/// The variables of the MLP: weights and bias of each layer (the output
/// layer's bias only when `output_bias`).
struct small_mlp {
  graph::output w1, b1, w2, b2;

  explicit small_mlp(const graph::scope& s, bool output_bias = true) {
    using core::tensor;
    w1 = graph::variable(
      s.sub("w1"),
      graph::constant(s, tensor::from_vector<double>(
                           {3, 5}, {0.1, -0.2, 0.3, 0.4, -0.5, 0.6, -0.7, 0.8,
                                    0.9, -1.0, 1.1, -1.2, 1.3, 1.4, -1.5})));
    b1 = graph::variable(
      s.sub("b1"), graph::constant(s, tensor::from_vector<double>(
                                        {5}, {0.1, 0.0, -0.1, 0.2, 0.3})));
    w2 = graph::variable(
      s.sub("w2"), graph::constant(s, tensor::from_vector<double>(
                                        {5, 2}, {0.5, -0.5, 0.25, 0.75, -0.25,
                                                 1.0, 0.0, -1.0, 0.125, 0.5})));
    if (output_bias)
      b2 = graph::variable(
        s.sub("b2"),
        graph::constant(s, tensor::from_vector<double>({2}, {0.01, -0.02})));
  }
};

} // namespace actorflow::test
