#include "actorflow/graph/nn_ops.hpp"

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "builder_util.hpp"

namespace actorflow::graph {

using detail::first;
using detail::int_constant;
using detail::typed;

output relu6(const scope& s, const output& x) {
  return typed(s, "Relu6", {x});
}

output elu(const scope& s, const output& x) {
  return typed(s, "Elu", {x});
}

output selu(const scope& s, const output& x) {
  return typed(s, "Selu", {x});
}

output softplus(const scope& s, const output& x) {
  return typed(s, "Softplus", {x});
}

output gelu(const scope& s, const output& x) {
  auto g = s.sub("Gelu");
  auto half = mul(g, constant(g.sub("half"), 0.5, x.dtype()), x);
  auto scaled = mul(g, neg(g, x),
                    constant(g.sub("scale"), 0.7071067811865475, x.dtype()));
  return mul(g, half, erfc(g, scaled));
}

output softmax(const scope& s, const output& logits) {
  return typed(s, "Softmax", {logits});
}

output log_softmax(const scope& s, const output& logits) {
  return typed(s, "LogSoftmax", {logits});
}

output bias_add(const scope& s, const output& value, const output& bias) {
  return typed(s, "BiasAdd", {value, bias});
}

namespace {

core::attr_map window_attrs(const window_options& o) {
  return {{"strides", std::vector<int64_t>{1, o.stride_h, o.stride_w, 1}},
          {"padding", o.padding}};
}

output pool(const scope& s, const char* op, const output& input, int64_t k_h,
            int64_t k_w, const window_options& o) {
  auto attrs = window_attrs(o);
  attrs.emplace("ksize", std::vector<int64_t>{1, k_h, k_w, 1});
  return typed(s, op, {input}, std::move(attrs));
}

core::attr_map seed_attrs(seeds seed) {
  return {{"seed", seed.seed}, {"seed2", seed.seed2}};
}

output random(const scope& s, const char* op, const output& shape,
              core::dtype type, seeds seed) {
  auto attrs = seed_attrs(seed);
  attrs.emplace("dtype", type);
  attrs.emplace("T", shape.dtype());
  return first(s.add_node(op, op, {shape}, std::move(attrs)));
}

output random(const scope& s, const char* op, const std::vector<int64_t>& dims,
              core::dtype type, seeds seed) {
  return random(s, op, int_constant(s, std::string{op} + "/shape", dims), type,
                seed);
}

} // namespace

output conv2d(const scope& s, const output& input, const output& filter,
              const window_options& options) {
  auto attrs = window_attrs(options);
  attrs.emplace("dilations", std::vector<int64_t>{1, options.dilation_h,
                                                  options.dilation_w, 1});
  return typed(s, "Conv2D", {input, filter}, std::move(attrs));
}

output max_pool(const scope& s, const output& input, int64_t k_h, int64_t k_w,
                const window_options& options) {
  return pool(s, "MaxPool", input, k_h, k_w, options);
}

output avg_pool(const scope& s, const output& input, int64_t k_h, int64_t k_w,
                const window_options& options) {
  return pool(s, "AvgPool", input, k_h, k_w, options);
}

batch_norm_outputs fused_batch_norm(const scope& s, const output& x,
                                    const output& scale, const output& offset,
                                    const output& mean, const output& variance,
                                    bool is_training, double epsilon) {
  auto outs = s.add_node(
    "FusedBatchNorm", "FusedBatchNorm", {x, scale, offset, mean, variance},
    {{"T", x.dtype()}, {"is_training", is_training}, {"epsilon", epsilon}});
  if (outs.size() < 3)
    return {};
  return {outs[0], outs[1], outs[2]};
}

output dropout(const scope& s, const output& x, double rate, seeds seed) {
  auto attrs = seed_attrs(seed);
  attrs.emplace("rate", rate);
  return typed(s, "Dropout", {x}, std::move(attrs));
}

namespace {

std::pair<output, output> two(std::vector<output> outs) {
  if (outs.size() < 2)
    return {};
  return {outs[0], outs[1]};
}

} // namespace

std::pair<output, output>
softmax_cross_entropy_with_logits(const scope& s, const output& logits,
                                  const output& labels) {
  return two(s.add_node("SoftmaxCrossEntropyWithLogits",
                        "SoftmaxCrossEntropyWithLogits", {logits, labels},
                        {{"T", logits.dtype()}}));
}

std::pair<output, output>
sparse_softmax_cross_entropy_with_logits(const scope& s, const output& logits,
                                         const output& labels) {
  return two(s.add_node("SparseSoftmaxCrossEntropyWithLogits",
                        "SparseSoftmaxCrossEntropyWithLogits", {logits, labels},
                        {{"T", logits.dtype()}, {"Tlabels", labels.dtype()}}));
}

output l2_loss(const scope& s, const output& x) {
  return typed(s, "L2Loss", {x});
}

std::pair<output, output> top_k(const scope& s, const output& x, int64_t k) {
  return two(
    s.add_node("TopKV2", "TopKV2",
               {x, int_constant(s, "TopKV2/k", {k}, true, core::dtype::int32)},
               {{"T", x.dtype()}}));
}

output in_top_k(const scope& s, const output& predictions,
                const output& targets, int64_t k) {
  return first(
    s.add_node("InTopKV2", "InTopKV2",
               {predictions, targets,
                int_constant(s, "InTopKV2/k", {k}, true, targets.dtype())},
               {{"T", targets.dtype()}}));
}

output random_uniform(const scope& s, const std::vector<int64_t>& dims,
                      core::dtype type, seeds seed) {
  return random(s, "RandomUniform", dims, type, seed);
}

output random_normal(const scope& s, const std::vector<int64_t>& dims,
                     double mean, double stddev, core::dtype type, seeds seed) {
  auto z = random(s, "RandomStandardNormal", dims, type, seed);
  return add(s, mul(s, z, constant(s.sub("stddev"), stddev, type)),
             constant(s.sub("mean"), mean, type));
}

output standard_normal(const scope& s, const output& shape, core::dtype type,
                       seeds seed) {
  return random(s, "RandomStandardNormal", shape, type, seed);
}

output standard_uniform(const scope& s, const output& shape, core::dtype type,
                        seeds seed) {
  return random(s, "RandomUniform", shape, type, seed);
}

output truncated_normal(const scope& s, const std::vector<int64_t>& dims,
                        core::dtype type, seeds seed) {
  return random(s, "TruncatedNormal", dims, type, seed);
}

output random_uniform_int(const scope& s, const std::vector<int64_t>& dims,
                          int64_t minval, int64_t maxval, seeds seed) {
  auto attrs = seed_attrs(seed);
  attrs.emplace("T", core::dtype::int64);
  attrs.emplace("Tout", core::dtype::int64);
  return first(
    s.add_node("RandomUniformInt", "RandomUniformInt",
               {int_constant(s, "RandomUniformInt/shape", dims),
                int_constant(s, "RandomUniformInt/minval", {minval}, true),
                int_constant(s, "RandomUniformInt/maxval", {maxval}, true)},
               std::move(attrs)));
}

output multinomial(const scope& s, const output& logits, int64_t num_samples,
                   seeds seed) {
  return typed(s, "Multinomial",
               {logits, int_constant(s, "Multinomial/num_samples",
                                     {num_samples}, true, core::dtype::int32)},
               seed_attrs(seed));
}

output random_shuffle(const scope& s, const output& x, seeds seed) {
  return typed(s, "RandomShuffle", {x}, seed_attrs(seed));
}

} // namespace actorflow::graph
