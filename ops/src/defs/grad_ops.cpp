// Ops that gradient functions build on, as TensorFlow's: the backward
// passes of activations and of BiasAdd, and the reduction axes of a
// broadcasting op's inputs.

#include "defs.hpp"

#include <algorithm>

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// Two inputs of one shape, and an output of that shape.
core::status same_shapes(shape_context& ctx) {
  if (!ctx.input(0).compatible_with(ctx.input(1)))
    return core::invalid_argument_error("inputs must have the same shape, got ",
                                        ctx.input(0).to_string(), " and ",
                                        ctx.input(1).to_string());
  ctx.set_output(0, ctx.input(0).merge(ctx.input(1)));
  return core::status::ok();
}

} // namespace

core::status register_grad_ops(op_registry& r) {
  // backprops = gradients where 0 < features (and features < 6 for Relu6).
  for (const char* name : {"ReluGrad", "Relu6Grad"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("gradients: T")
                                      .input("features: T")
                                      .output("backprops: T")
                                      .attr("T: {float, double}")
                                      .shape_fn(same_shapes)));
  // From the forward's outputs: gradients * (outputs + 1) where outputs
  // < 0, gradients elsewhere; for SELU with its scale and alpha.
  for (const char* name : {"EluGrad", "SeluGrad"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("gradients: T")
                                      .input("outputs: T")
                                      .output("backprops: T")
                                      .attr("T: {float, double}")
                                      .shape_fn(same_shapes)));
  // gradients where 0 < features, alpha * gradients elsewhere; and
  // gradients / (1 + |features|)^2.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("LeakyReluGrad")
                                    .input("gradients: T")
                                    .input("features: T")
                                    .output("backprops: T")
                                    .attr("alpha: float = 0.2")
                                    .attr("T: {float, double}")
                                    .shape_fn(same_shapes)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("SoftsignGrad")
                                    .input("gradients: T")
                                    .input("features: T")
                                    .output("backprops: T")
                                    .attr("T: {float, double}")
                                    .shape_fn(same_shapes)));
  // From the forward output y: dy * y * (1 - y), dy * (1 - y^2),
  // dy * -y^3 / 2 (y = rsqrt(x)) and dy / (2 y) (y = sqrt(x)).
  for (const char* name : {"SigmoidGrad", "TanhGrad", "RsqrtGrad", "SqrtGrad"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("y: T")
                                      .input("dy: T")
                                      .output("z: T")
                                      .attr("T: {float, double}")
                                      .shape_fn(same_shapes)));
  // The bias's gradient: out_backprop summed over all but its last axis.
  ACTORFLOW_RETURN_IF_ERROR(r.add(
    op_def_builder("BiasAddGrad")
      .input("out_backprop: T")
      .output("output: T")
      .attr("T: {float, double}")
      .attr("data_format: string = 'NHWC'")
      .shape_fn([](shape_context& ctx) {
        const auto& s = ctx.input(0);
        if (s.rank() == 0)
          return core::invalid_argument_error(
            "BiasAddGrad needs rank >= 1, got a scalar");
        ctx.set_output(0, s.rank() < 0 ? core::shape{-1}
                                       : core::shape{s.dim(s.rank() - 1)});
        return core::status::ok();
      })));
  // Where each of N shapes starts in their concatenation along concat_dim
  // (ConcatV2's gradient, as TensorFlow writes it).
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("ConcatOffset")
                                    .input("concat_dim: int32")
                                    .input("shape: N * shape_type")
                                    .output("offset: N * shape_type")
                                    .attr("N: int")
                                    .attr("shape_type: {int32, int64} = int32")
                                    .shape_fn([](shape_context& ctx) {
                                      for (size_t i = 1; i < ctx.num_inputs();
                                           ++i)
                                        ctx.set_output(i - 1, ctx.input(i));
                                      return core::status::ok();
                                    })));
  // y[x[i]] = i: the inverse of a permutation (Transpose's gradient).
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("InvertPermutation")
                                    .input("x: T")
                                    .output("y: T")
                                    .attr("T: {int32, int64} = int32")
                                    .shape_fn(unchanged_shape)));
  // For z = x op y broadcast from shapes s0 and s1: the axes of z to sum
  // the gradient over for x (r0) and for y (r1).
  return r.add(op_def_builder("BroadcastGradientArgs")
                 .input("s0: T")
                 .input("s1: T")
                 .output("r0: T")
                 .output("r1: T")
                 .attr("T: {int32, int64}")
                 .shape_fn([](shape_context& ctx) {
                   for (size_t i = 0; i < 2; ++i)
                     if (ctx.input(i).rank() > 1)
                       return core::invalid_argument_error(
                         "shapes must be vectors, got ",
                         ctx.input(i).to_string());
                   // Known shapes give the number of axes each sums over.
                   std::vector<int64_t> s0, s1;
                   if (!ctx.input_ints(0, &s0) || !ctx.input_ints(1, &s1)) {
                     ctx.set_output(0, core::shape{-1});
                     ctx.set_output(1, core::shape{-1});
                     return core::status::ok();
                   }
                   auto rank = std::max(s0.size(), s1.size());
                   auto ones = [rank](const std::vector<int64_t>& x) {
                     auto n = static_cast<int64_t>(rank - x.size());
                     return n + std::count(x.begin(), x.end(), int64_t{1});
                   };
                   ctx.set_output(0, core::shape{ones(s0)});
                   ctx.set_output(1, core::shape{ones(s1)});
                   return core::status::ok();
                 }));
}

} // namespace actorflow::ops::defs
