#pragma once

/// Op functions for neural-network building blocks and random values.

#include <string>
#include <utility>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

output relu6(const scope& s, const output& x);
output elu(const scope& s, const output& x);
output selu(const scope& s, const output& x);
output softplus(const scope& s, const output& x);
/// Gaussian error linear unit, exact: 0.5 x erfc(-x / sqrt(2)), written
/// as tf.nn.gelu(approximate=False) writes it (Mul, Neg, Mul, Erfc, Mul
/// under "Gelu"); the fusion pass runs those as one `_GeluExact`.
output gelu(const scope& s, const output& x);
/// Softmax over the last dimension.
output softmax(const scope& s, const output& logits);
output log_softmax(const scope& s, const output& logits);
/// value + bias, bias along the last dimension.
output bias_add(const scope& s, const output& value, const output& bias);

/// How a Conv2D or pooling window moves over an NHWC tensor.
struct window_options {
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  std::string padding = "SAME"; ///< SAME or VALID.
  int64_t dilation_h = 1;       ///< Conv2D only.
  int64_t dilation_w = 1;       ///< Conv2D only.
};

/// 2-D convolution of NHWC `input` with HWIO `filter`.
output conv2d(const scope& s, const output& input, const output& filter,
              const window_options& options = {});
output max_pool(const scope& s, const output& input, int64_t k_h, int64_t k_w,
                const window_options& options = {});
output avg_pool(const scope& s, const output& input, int64_t k_h, int64_t k_w,
                const window_options& options = {});

/// The outputs of FusedBatchNorm.
struct batch_norm_outputs {
  output y;
  output batch_mean;
  output batch_variance; ///< With Bessel's correction in training.
};

/// Batch normalisation of NHWC `x` over N, H and W.
batch_norm_outputs fused_batch_norm(const scope& s, const output& x,
                                    const output& scale, const output& offset,
                                    const output& mean, const output& variance,
                                    bool is_training, double epsilon = 1e-4);

/// The seeds of a random op: the same pair gives the same values.
struct seeds {
  int64_t seed = 0;
  int64_t seed2 = 0;
};

/// x scaled by 1/(1-rate) where kept, 0 with probability `rate`.
output dropout(const scope& s, const output& x, double rate, seeds seed = {});

/// Per-row cross entropy of softmax(logits) against `labels` (a
/// distribution per row, or class indices for the sparse form), and the
/// gradient with respect to the logits.
std::pair<output, output>
softmax_cross_entropy_with_logits(const scope& s, const output& logits,
                                  const output& labels);
std::pair<output, output>
sparse_softmax_cross_entropy_with_logits(const scope& s, const output& logits,
                                         const output& labels);
/// sum(x^2) / 2.
output l2_loss(const scope& s, const output& x);
/// The k largest values of each row and their indices.
std::pair<output, output> top_k(const scope& s, const output& x, int64_t k);
output in_top_k(const scope& s, const output& predictions,
                const output& targets, int64_t k);

output random_uniform(const scope& s, const std::vector<int64_t>& dims,
                      core::dtype type = core::dtype::float32, seeds seed = {});
/// mean + stddev * a standard normal value (RandomStandardNormal).
output random_normal(const scope& s, const std::vector<int64_t>& dims,
                     double mean = 0.0, double stddev = 1.0,
                     core::dtype type = core::dtype::float32, seeds seed = {});
/// Standard normal values of a shape known only when the graph runs
/// (`shape`: an int32/int64 vector).
output standard_normal(const scope& s, const output& shape,
                       core::dtype type = core::dtype::float32,
                       seeds seed = {});
/// Uniform values in [0, 1) of a shape known only when the graph runs.
output standard_uniform(const scope& s, const output& shape,
                        core::dtype type = core::dtype::float32,
                        seeds seed = {});
/// Normal values more than two standard deviations out are drawn again.
output truncated_normal(const scope& s, const std::vector<int64_t>& dims,
                        core::dtype type = core::dtype::float32,
                        seeds seed = {});
/// Integers in [minval, maxval), int64.
output random_uniform_int(const scope& s, const std::vector<int64_t>& dims,
                          int64_t minval, int64_t maxval, seeds seed = {});
/// `num_samples` class indices per row of logits.
output multinomial(const scope& s, const output& logits, int64_t num_samples,
                   seeds seed = {});
/// `x` with its rows (first dimension) shuffled.
output random_shuffle(const scope& s, const output& x, seeds seed = {});

} // namespace actorflow::graph
