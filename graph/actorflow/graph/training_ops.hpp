#pragma once

/// The optimizers' update ops (TensorFlow's `training_ops`): each updates
/// a variable and its slot variables in place from a gradient and returns
/// the variable's reference. Scalars (learning rate, decay, ...) are
/// tensors of the variable's dtype, usually constants.

#include <optional>
#include <string>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// var -= alpha * delta.
output apply_gradient_descent(const scope& s, const output& var,
                              const output& alpha, const output& delta,
                              bool use_locking = false);

/// accum = accum * momentum + grad; var -= lr * accum (Nesterov: var -=
/// lr * grad + lr * momentum * accum).
output apply_momentum(const scope& s, const output& var, const output& accum,
                      const output& lr, const output& grad,
                      const output& momentum, bool use_nesterov = false,
                      bool use_locking = false);

/// accum += grad^2; var -= lr * grad / sqrt(accum).
output apply_adagrad(const scope& s, const output& var, const output& accum,
                     const output& lr, const output& grad,
                     bool use_locking = false);

/// ms = rho ms + (1 - rho) grad^2; mom = momentum mom + lr grad /
/// sqrt(ms + epsilon); var -= mom.
output apply_rms_prop(const scope& s, const output& var, const output& ms,
                      const output& mom, const output& lr, const output& rho,
                      const output& momentum, const output& epsilon,
                      const output& grad, bool use_locking = false);

/// Adam with bias correction from beta1_power = beta1^t and beta2_power =
/// beta2^t: m, v moments; var -= lr_t m / (sqrt(v) + epsilon).
struct adam_inputs {
  output beta1_power, beta2_power, lr, beta1, beta2, epsilon;
};

output apply_adam(const scope& s, const output& var, const output& m,
                  const output& v, const adam_inputs& h, const output& grad,
                  bool use_nesterov = false, bool use_locking = false);

/// Which update `minimize` builds, and its hyper-parameters (TensorFlow
/// v1's defaults where the optimizer has them).
struct optimizer {
  enum class algorithm { sgd, momentum, adagrad, rms_prop, adam };
  algorithm kind = algorithm::sgd;
  double learning_rate = 0.01;
  /// A scalar of the variables' dtype used instead of `learning_rate`
  /// when set (a schedule: exponential decay of a global step, ...).
  std::optional<output> learning_rate_tensor;
  double momentum = 0.9;            ///< momentum and rms_prop
  bool nesterov = false;            ///< momentum and adam
  double initial_accumulator = 0.1; ///< adagrad
  double rho = 0.9;                 ///< rms_prop's decay
  double beta1 = 0.9;               ///< adam
  double beta2 = 0.999;             ///< adam
  double epsilon = 1e-8;            ///< rms_prop (1e-10 in TF) and adam

  /// Parses "sgd", "momentum", "nesterov", "adagrad", "rmsprop" or "adam"
  /// into `out`'s kind (and nesterov); false for another name.
  static bool parse(const std::string& name, optimizer* out);
};

/// Adds the gradients of `loss` with respect to each variable of
/// `var_list`, one update op per variable (with its slot variables,
/// zero-initialised — adagrad: `initial_accumulator` — by the graph's
/// initializer, `scope::initializer()`) and, for Adam, the updates of
/// beta1^t and beta2^t after them. Returns a NoOp that runs one training
/// step. A variable the loss does not depend on is left alone; none at
/// all is an error.
operation minimize(const scope& s, const output& loss,
                   const std::vector<output>& var_list,
                   const optimizer& opt = {});

/// The second half of `minimize`: one update op per variable of
/// `var_list` from `grads[i]` (none: the variable is left alone), with the
/// slot variables `opt` needs; returns the NoOp that runs them all. For
/// gradients computed elsewhere, e.g. averaged over the replicas of a
/// synchronous training job.
operation apply_gradients(const scope& s,
                          const std::vector<std::optional<output>>& grads,
                          const std::vector<output>& var_list,
                          const optimizer& opt = {});

} // namespace actorflow::graph
