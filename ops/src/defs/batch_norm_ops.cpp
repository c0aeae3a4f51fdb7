// Batch normalisation: FusedBatchNorm, TensorFlow 2's FusedBatchNormV3
// (every Keras BatchNormalization and, NCHW, LayerNormalization) and
// their gradients.

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// FusedBatchNorm*V3's statistics: in U, which must be T here (float for
/// float, as every graph TensorFlow writes on a CPU has it).
core::status check_statistics_type(const shape_context& ctx) {
  auto t = ctx.attr_or("T", core::dtype::float32);
  auto u = ctx.attr_or("U", t);
  if (u != t)
    return core::unimplemented_error(
      "attr U (the statistics' dtype) must equal T here: T is ",
      core::to_string(t), ", U ", core::to_string(u));
  return core::status::ok();
}

/// The channels' axis of a FusedBatchNorm* node: 3 for NHWC, 1 for NCHW
/// (what Keras' LayerNormalization writes); another data_format is
/// `unimplemented`.
core::status batch_norm_channel_axis(const shape_context& ctx, int* axis) {
  auto format = ctx.attr_or("data_format", std::string{"NHWC"});
  if (format != "NHWC" && format != "NCHW")
    return core::unimplemented_error("data_format must be NHWC or NCHW, got '",
                                     format, "'");
  *axis = format == "NHWC" ? 3 : 1;
  return core::status::ok();
}

core::status batch_norm_shape(shape_context& ctx) {
  ACTORFLOW_RETURN_IF_ERROR(check_statistics_type(ctx));
  auto x = ctx.input(0);
  if (x.known_rank() && x.rank() != 4)
    return core::invalid_argument_error("FusedBatchNorm needs a rank-4 input "
                                        "(NHWC or NCHW), got ",
                                        x.to_string());
  int axis = 0;
  ACTORFLOW_RETURN_IF_ERROR(batch_norm_channel_axis(ctx, &axis));
  int64_t c = x.known_rank() ? x.dim(axis) : -1;
  bool training = ctx.attr_or("is_training", true);
  for (size_t i = 1; i < 5; ++i) {
    const auto& s = ctx.input(i);
    // In training, mean and variance may be empty (no running averages).
    if (training && i >= 3 && s.known_rank() && s.rank() == 1 && s.dim(0) == 0)
      continue;
    if (!s.compatible_with(core::shape{c}))
      return core::invalid_argument_error(
        "FusedBatchNorm input ", i, " must be [", c, "], got ", s.to_string());
  }
  ctx.set_output(0, x);
  for (size_t i = 1; i < 5; ++i)
    ctx.set_output(i, core::shape{c});
  if (ctx.outputs().size() == 6) // V3's reserve_space_3
    ctx.set_output(5, core::shape{0});
  return core::status::ok();
}

} // namespace

core::status register_batch_norm_ops(op_registry& r) {
  const char* floats = "T: {float, double}";
  std::vector<op_def_builder> ops;
  // FusedBatchNorm and TensorFlow 2's V3 (what every Keras
  // BatchNormalization writes): the statistics in U (here U = T; float64
  // is actorflow's addition), a sixth output reserve_space_3 (empty here).
  for (bool v3 : {false, true}) {
    const char* stats = v3 ? "U" : "T";
    auto arg
      = [&](const char* name) { return std::string{name} + ": " + stats; };
    op_def_builder b{v3 ? "FusedBatchNormV3" : "FusedBatchNorm"};
    b.input("x: T")
      .input(arg("scale"))
      .input(arg("offset"))
      .input(arg("mean"))
      .input(arg("variance"))
      .output("y: T")
      .output(arg("batch_mean"))
      .output(arg("batch_variance"))
      .output(arg("reserve_space_1"))
      .output(arg("reserve_space_2"));
    if (v3)
      b.output(arg("reserve_space_3"))
        .attr("T: {float, double}")
        .attr("U: {float, double}");
    else
      b.attr(floats);
    ops.push_back(b.attr("epsilon: float = 0.0001")
                    .attr("exponential_avg_factor: float = 1.0")
                    .attr("data_format: string = 'NHWC'")
                    .attr("is_training: bool = true")
                    .shape_fn(batch_norm_shape));
  }
  // FusedBatchNorm's gradients from the mean and variance it used
  // (reserve_space_1/2); reserve_space_3/4 (V3: 4/5) are empty, as
  // TensorFlow's. V3 takes the forward's reserve_space_3 too and ignores
  // it.
  for (bool v3 : {false, true}) {
    const char* stats = v3 ? "U" : "T";
    auto arg
      = [&](const char* name) { return std::string{name} + ": " + stats; };
    op_def_builder b{v3 ? "FusedBatchNormGradV3" : "FusedBatchNormGrad"};
    b.input("y_backprop: T")
      .input("x: T")
      .input(arg("scale"))
      .input(arg("reserve_space_1"))
      .input(arg("reserve_space_2"));
    if (v3)
      b.input(arg("reserve_space_3"));
    b.output("x_backprop: T")
      .output(arg("scale_backprop"))
      .output(arg("offset_backprop"))
      .output(arg(v3 ? "reserve_space_4" : "reserve_space_3"))
      .output(arg(v3 ? "reserve_space_5" : "reserve_space_4"));
    if (v3)
      b.attr("T: {float, double}").attr("U: {float, double}");
    else
      b.attr(floats);
    ops.push_back(b.attr("epsilon: float = 0.0001")
                    .attr("data_format: string = 'NHWC'")
                    .attr("is_training: bool = true")
                    .shape_fn([](shape_context& ctx) {
                      ACTORFLOW_RETURN_IF_ERROR(check_statistics_type(ctx));
                      int axis = 0;
                      ACTORFLOW_RETURN_IF_ERROR(
                        batch_norm_channel_axis(ctx, &axis));
                      auto x = ctx.input(1).merge(ctx.input(0));
                      auto c = x.rank() == 4 ? x.dim(axis) : int64_t{-1};
                      ctx.set_output(0, x);
                      ctx.set_output(1, core::shape{c});
                      ctx.set_output(2, core::shape{c});
                      ctx.set_output(3, core::shape{0});
                      ctx.set_output(4, core::shape{0});
                      return core::status::ok();
                    }));
  }
  for (const auto& b : ops)
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
