#pragma once

/// The sparsely-gated mixture-of-experts layer of Shazeer et al. (2017):
/// a gating network picks the top k of n experts for each example, each
/// expert sees only the rows sent to it (on its own device, if given) and
/// the layer's output is the gate-weighted sum of the chosen experts'.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// The gating network's weights: w_gate [depth, experts] and, for noisy
/// gating, w_noise [depth, experts] (variables, or any tensors).
struct moe_gating {
  output w_gate;
  output w_noise;

  /// Variables under `s` ("w_gate", "w_noise"), zero as in the paper (all
  /// experts equally likely at first; the noise breaks the ties).
  static moe_gating make(const scope& s, int64_t depth, int64_t experts,
                         core::dtype type = core::dtype::float32);

  /// The weights, for an optimizer's var_list.
  std::vector<output> weights() const;
};

/// Builds expert `index` on `rows` [m, depth] in `s` (whose device is the
/// expert's) and returns its rows [m, output_size]. It runs inside the
/// layer's cond for that expert: make the expert's variables beforehand
/// (on its device) and only use them here.
using moe_expert_fn
  = std::function<output(const scope& s, const output& rows, int64_t index)>;

/// The experts of a layer.
struct moe_experts {
  int64_t count = 0;
  /// The width of each expert's output rows.
  int64_t output_size = 0;
  moe_expert_fn build;
  /// Expert i runs on devices[i % size] ("/job:expert/task:0/cpu:0",
  /// "cpu:1", ...); on the layer's device when empty.
  std::vector<std::string> devices;
};

/// How the layer gates.
struct moe_options {
  /// Experts per example.
  int64_t k = 2;
  /// Adds StandardNormal() * Softplus(x @ w_noise) to the gate logits.
  bool noisy_gating = true;
  /// The coefficients of the importance and load losses.
  double w_importance = 0.1;
  double w_load = 0.1;
  /// The noise [batch, experts] to use instead of drawing it (tests,
  /// TensorFlow comparisons).
  output noise;
  /// A scalar of x's dtype the noise is multiplied by: 1 to train, 0 to
  /// evaluate without noise; noise always when unset.
  output noise_scale;
  seeds seed;
};

/// What the layer makes.
struct moe_outputs {
  /// [batch, output_size]: sum over the example's experts of gate * expert.
  output y;
  /// w_importance * CV(importance)^2 + w_load * CV(load)^2, to add to the
  /// model's loss.
  output loss;
  /// [experts]: the gates summed over the batch.
  output importance;
  /// [experts]: the smooth load estimator of the paper (the probability,
  /// under the noise, that each example picks each expert, summed); the
  /// count of examples per expert without noisy gating.
  output load;
  /// [batch, experts]: softmax over each example's top k, 0 elsewhere.
  output gates;
  /// [experts] int32: the rows each expert got this step.
  output rows;
};

/// The layer on x [batch, depth]. Each expert's rows are a dynamic
/// partition of the (example, expert) pairs with a non-zero gate; an
/// expert that gets none runs nothing (its branch of a cond is dead), and
/// only its rows cross to its device. Gradients reach the gating weights
/// (through the gates and, with noisy gating, the load loss) and the
/// experts.
moe_outputs moe_layer(const scope& s, const output& x, const moe_gating& gating,
                      const moe_experts& experts, const moe_options& options);

} // namespace actorflow::graph
