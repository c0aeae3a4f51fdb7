#pragma once

/// The restricted Boltzmann machine with binary visible and hidden units,
/// trained by contrastive divergence (Hinton 2002) or its persistent form
/// (Tieleman 2008): the energy model of SINGA's zoo, and the layers a
/// deep autoencoder is pretrained with (Hinton & Salakhutdinov 2006).

#include <cstdint>

#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// How `rbm::train_step` updates.
struct rbm_options {
  /// Gibbs steps of the negative phase (CD-k).
  int64_t cd_k = 1;
  /// Persistent CD: the negative chain goes on from where the last step
  /// left it (a variable of `batch` rows) instead of starting at the data.
  bool persistent = false;
  /// Rows of a batch (needed by the persistent chain).
  int64_t batch = 0;
  double learning_rate = 0.1;
  /// Hidden units with no noise: their value is their input (the linear
  /// code layer of a deep autoencoder's last RBM); binary otherwise.
  bool linear_hidden = false;
  seeds seed;
};

/// What one training step makes.
struct rbm_step {
  /// Runs the update of the weights and both biases (and the chain).
  operation update;
  /// Mean squared error between the batch and its mean-field
  /// reconstruction sigmoid(h0 W' + b_v), h0 the hidden probabilities.
  output reconstruction_error;
  /// The data's hidden probabilities and the negative phase's visible
  /// sample and hidden probabilities, from which the update was made.
  output positive_hidden, negative_visible, negative_hidden;
};

/// An RBM over variables (or any tensors) w [visible, hidden],
/// visible_bias [visible] and hidden_bias [hidden].
class rbm {
public:
  rbm(output w, output visible_bias, output hidden_bias);

  /// An RBM with new variables under `s`: w normal with deviation 0.01,
  /// biases 0 (Hinton's guide).
  static rbm make(const scope& s, int64_t visible, int64_t hidden,
                  core::dtype type = core::dtype::float32, seeds seed = {});

  /// P(h = 1 | v) = sigmoid(v w + hidden_bias) (the input itself for
  /// linear hidden units).
  output hidden_probs(const scope& s, const output& v,
                      bool linear = false) const;

  /// P(v = 1 | h) = sigmoid(h w' + visible_bias).
  output visible_probs(const scope& s, const output& h) const;

  /// Binary values, 1 with probability `p` (element-wise).
  static output sample(const scope& s, const output& p, seeds seed);

  /// One CD-k (or PCD-k) step on a batch `v0` [batch, visible] of values
  /// in [0, 1]: w += lr (v0' ph0 - vk' phk) / batch, visible_bias += lr
  /// mean(v0 - vk), hidden_bias += lr mean(ph0 - phk).
  rbm_step train_step(const scope& s, const output& v0,
                      const rbm_options& options) const;

  const output& w() const noexcept {
    return w_;
  }
  const output& visible_bias() const noexcept {
    return visible_bias_;
  }
  const output& hidden_bias() const noexcept {
    return hidden_bias_;
  }

private:
  output w_, visible_bias_, hidden_bias_;
};

} // namespace actorflow::graph
