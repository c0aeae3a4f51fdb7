#include "actorflow/graph/moe.hpp"

#include <algorithm>
#include <cmath>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/dispatch_ops.hpp"
#include "actorflow/graph/math_ops.hpp"

#include "builder_util.hpp"

namespace actorflow::graph {

namespace {

output scalar(const scope& s, double v, core::dtype type) {
  return constant(s, v, type);
}

/// The normal distribution's CDF, 0.5 * erfc(-z / sqrt(2)).
output normal_cdf(const scope& s, const output& z) {
  auto t = z.dtype();
  return mul(s, scalar(s, 0.5, t),
             erfc(s, mul(s, z, scalar(s, -1.0 / std::sqrt(2.0), t))));
}

/// The squared coefficient of variation of a vector, var / (mean^2 + eps):
/// the paper's balancing loss before its coefficient; 0 for one expert.
output cv_squared(const scope& s, const output& v, int64_t n) {
  auto t = v.dtype();
  if (n < 2)
    return scalar(s, 0.0, t);
  auto mean = reduce_mean(s, v, {0});
  auto variance = reduce_mean(s, square(s, sub(s, v, mean)), {0});
  return div(s, variance, add(s, square(s, mean), scalar(s, 1e-10, t)));
}

/// The probability that each expert stays in each example's top k when
/// the noise of that one logit is drawn again (the paper's P(x, i)):
/// against the k-th largest of the others -- the (k+1)-th of all where
/// the expert is in the top k, the k-th where it is not.
output prob_in_top_k(const scope& s, const output& clean, const output& noisy,
                     const output& stddev, const output& top, int64_t k) {
  auto if_in = slice(s, top, {0, k}, {-1, 1});
  auto if_out = slice(s, top, {0, k - 1}, {-1, 1});
  auto is_in = greater(s, noisy, if_in);
  return select_v2(s, is_in,
                   normal_cdf(s, div(s, sub(s, clean, if_in), stddev)),
                   normal_cdf(s, div(s, sub(s, clean, if_out), stddev)));
}

} // namespace

moe_gating moe_gating::make(const scope& s, int64_t depth, int64_t experts,
                            core::dtype type) {
  auto zero = [&](const char* name) {
    return variable(s.sub(name),
                    zeros(s.sub(name).sub("init"), {depth, experts}, type));
  };
  return {zero("w_gate"), zero("w_noise")};
}

std::vector<output> moe_gating::weights() const {
  return w_noise.valid() ? std::vector<output>{w_gate, w_noise}
                         : std::vector<output>{w_gate};
}

moe_outputs moe_layer(const scope& outer, const output& x,
                      const moe_gating& gating, const moe_experts& experts,
                      const moe_options& o) {
  auto s = outer.sub("moe");
  auto type = x.dtype();
  auto n = experts.count;
  auto k = std::min(o.k, n);
  moe_outputs out;

  // Gating: softmax over each example's top k logits, scattered back.
  auto clean = matmul(s, x, gating.w_gate);
  auto logits = clean;
  output stddev;
  bool noisy = o.noisy_gating && gating.w_noise.valid();
  if (noisy) {
    stddev = add(s, softplus(s, matmul(s, x, gating.w_noise)),
                 scalar(s, 1e-2, type));
    auto noise = o.noise.valid()
                   ? o.noise
                   : standard_normal(s, shape_of(s, clean), type, o.seed);
    if (o.noise_scale.valid())
      noise = mul(s, noise, o.noise_scale);
    logits = add(s, clean, mul(s, noise, stddev));
  }
  auto [top, top_index] = top_k(s, logits, std::min(k + 1, n));
  auto top_gates = softmax(s, slice(s, top, {0, 0}, {-1, k}));
  auto batch_vec = slice(s, shape_of(s, x), {0}, {1});
  auto batch = reshape(s, batch_vec, std::vector<int64_t>{});
  auto example
    = range(s, constant(s, int32_t{0}), batch, constant(s, int32_t{1}));
  auto coords = stack(s,
                      {tile(s, expand_dims(s, example, 1), {1, k}),
                       slice(s, top_index, {0, 0}, {-1, k})},
                      2);
  out.gates = scatter_nd(
    s, coords, top_gates,
    concat(s,
           {batch_vec,
            detail::int_constant(s, "experts", {n}, false, core::dtype::int32)},
           0));

  // The balancing losses.
  auto zero = scalar(s, 0.0, type);
  auto chosen = greater(s, out.gates, zero);
  out.importance = reduce_sum(s, out.gates, {0});
  out.load
    = noisy && k < n
        ? reduce_sum(s, prob_in_top_k(s, clean, logits, stddev, top, k), {0})
        : reduce_sum(s, cast(s, chosen, type), {0});
  out.loss = add(
    s,
    mul(s, scalar(s, o.w_importance, type), cv_squared(s, out.importance, n)),
    mul(s, scalar(s, o.w_load, type), cv_squared(s, out.load, n)));
  out.rows = reduce_sum(s, cast(s, chosen, core::dtype::int32), {0});

  // Dispatch: the (expert, example) pairs with a gate, by expert.
  auto pairs = unstack(
    s, cast(s, where(s, transpose(s, chosen, {1, 0})), core::dtype::int32), 2,
    1);
  const auto& expert_index = pairs[0];
  const auto& example_index = pairs[1];
  auto n_const = constant(s, static_cast<int32_t>(n));
  auto pair_gates
    = gather(s, reshape(s, out.gates, std::vector<int64_t>{-1}),
             add(s, mul(s, example_index, n_const), expert_index));
  auto parts
    = dynamic_partition(s, gather(s, x, example_index), expert_index, n);

  // Each expert on its device, run only when it has rows: the cond
  // itself there, so that what it switches (the rows, the expert's
  // weights) and the gradients of those switches stay with the expert.
  std::vector<output> results;
  for (int64_t i = 0; i < n; ++i) {
    auto es = s.sub("expert_" + std::to_string(i));
    const auto& rows = parts[static_cast<size_t>(i)];
    auto has_rows = greater(es, size(es, rows), constant(es, int32_t{0}));
    if (!experts.devices.empty())
      es = es.with_device(
        experts.devices[static_cast<size_t>(i) % experts.devices.size()]);
    results.push_back(cond(
      es, has_rows,
      [&](const scope& b) {
        return std::vector<output>{experts.build(b, rows, i)};
      },
      [&](const scope& b) {
        return std::vector<output>{zeros(b, {0, experts.output_size}, type)};
      })[0]);
  }

  // Combine: each pair's rows weighted by its gate, summed per example.
  auto weighted = mul(s, concat(s, results, 0), expand_dims(s, pair_gates, 1));
  out.y = unsorted_segment_sum(s, weighted, example_index, batch);
  return out;
}

} // namespace actorflow::graph
