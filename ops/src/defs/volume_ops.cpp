// Ops over volumes (NDHWC): Conv3D, MaxPool3D, AvgPool3D and their
// gradients (Keras' Conv3D, Conv3DTranspose, MaxPooling3D,
// AveragePooling3D).

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// The output size along one dimension (-1 when the input is unknown).
int64_t window_output(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                      bool same) {
  if (in < 0 || k < 0)
    return -1;
  if (same)
    return (in + stride - 1) / stride;
  auto effective = (k - 1) * dilation + 1;
  return in < effective ? 0 : (in - effective) / stride + 1;
}

/// Checks the attrs of a 3-D windowed op: strides (and ksize, dilations)
/// [1, d, h, w, 1], padding SAME or VALID, data_format NDHWC.
core::status check_volume_attrs(const shape_context& ctx, bool* same) {
  auto padding = ctx.attr_or("padding", std::string{});
  if (padding != "SAME" && padding != "VALID")
    return core::invalid_argument_error("padding must be SAME or VALID, got '",
                                        padding, "'");
  if (ctx.attr_or("data_format", std::string{"NDHWC"}) != "NDHWC")
    return core::unimplemented_error("only data_format NDHWC is supported");
  for (const char* name : {"strides", "ksize", "dilations"}) {
    auto v = ctx.attr_or(name, std::vector<int64_t>{1, 1, 1, 1, 1});
    if (v.size() != 5 || v[0] != 1 || v[4] != 1 || v[1] < 1 || v[2] < 1
        || v[3] < 1)
      return core::invalid_argument_error(
        name, " must be [1, d, h, w, 1] with d, h, w >= 1, got ",
        core::shape{v}.to_string());
  }
  *same = padding == "SAME";
  return core::status::ok();
}

/// The output of a 3-D window over `in` with window sizes `k` (three).
core::shape volume_output(const shape_context& ctx, core::shape in,
                          const std::vector<int64_t>& k, int64_t channels,
                          bool same) {
  if (!in.known_rank())
    in = core::shape{-1, -1, -1, -1, -1};
  auto strides = ctx.attr_or("strides", std::vector<int64_t>{1, 1, 1, 1, 1});
  auto dilations
    = ctx.attr_or("dilations", std::vector<int64_t>{1, 1, 1, 1, 1});
  std::vector<int64_t> dims{in.dim(0)};
  for (size_t d = 0; d < 3; ++d)
    dims.push_back(window_output(in.dim(static_cast<int>(d) + 1), k[d],
                                 strides[d + 1], dilations[d + 1], same));
  dims.push_back(channels);
  return core::shape{std::move(dims)};
}

core::status conv3d_shape(shape_context& ctx) {
  bool same = false;
  ACTORFLOW_RETURN_IF_ERROR(check_volume_attrs(ctx, &same));
  auto in = ctx.input(0), f = ctx.input(1);
  if ((in.known_rank() && in.rank() != 5) || (f.known_rank() && f.rank() != 5))
    return core::invalid_argument_error(
      "Conv3D needs a rank-5 input (NDHWC) and filter (DHWIO), got ",
      in.to_string(), " and ", f.to_string());
  if (!f.known_rank())
    f = core::shape{-1, -1, -1, -1, -1};
  if (in.known_rank() && in.dim(4) >= 0 && f.dim(3) >= 0
      && in.dim(4) != f.dim(3))
    return core::invalid_argument_error("Conv3D input has ", in.dim(4),
                                        " channels but the filter expects ",
                                        f.dim(3));
  ctx.set_output(
    0, volume_output(ctx, in, {f.dim(0), f.dim(1), f.dim(2)}, f.dim(4), same));
  return core::status::ok();
}

core::status pool3d_shape(shape_context& ctx) {
  bool same = false;
  ACTORFLOW_RETURN_IF_ERROR(check_volume_attrs(ctx, &same));
  auto in = ctx.input(0);
  if (in.known_rank() && in.rank() != 5)
    return core::invalid_argument_error("3-D pooling needs NDHWC, got ",
                                        in.to_string());
  auto k = ctx.attr_or("ksize", std::vector<int64_t>{1, 1, 1, 1, 1});
  ctx.set_output(0, volume_output(ctx, in, {k[1], k[2], k[3]},
                                  in.known_rank() ? in.dim(4) : -1, same));
  return core::status::ok();
}

/// A gradient's output: the rank-5 shape its int input `i` holds, when
/// that input is a constant.
op_def::shape_fn shape_from_sizes(size_t i) {
  return [i](shape_context& ctx) {
    bool same = false;
    ACTORFLOW_RETURN_IF_ERROR(check_volume_attrs(ctx, &same));
    std::vector<int64_t> sizes;
    ctx.set_output(0, ctx.input_ints(i, &sizes) && sizes.size() == 5
                        ? core::shape{sizes}
                        : core::shape{-1, -1, -1, -1, -1});
    return core::status::ok();
  };
}

/// The attrs every 3-D windowed op has.
op_def_builder volume(op_def_builder b, bool pooling) {
  b.attr("T: {float, double}");
  if (pooling)
    b.attr("ksize: list(int)");
  b.attr("strides: list(int)")
    .attr("padding: string")
    .attr("data_format: string = 'NDHWC'");
  if (!pooling)
    b.attr("dilations: list(int) = [1, 1, 1, 1, 1]");
  return b;
}

} // namespace

core::status register_volume_ops(op_registry& r) {
  std::vector<op_def_builder> ops;
  ops.push_back(volume(op_def_builder("Conv3D")
                         .input("input: T")
                         .input("filter: T")
                         .output("output: T"),
                       false)
                  .shape_fn(conv3d_shape));
  // Conv3D's gradients; the forward's other operand is given by its shape
  // (TensorFlow's V2: the sizes as a tensor).
  ops.push_back(volume(op_def_builder("Conv3DBackpropInputV2")
                         .input("input_sizes: Tshape")
                         .input("filter: T")
                         .input("out_backprop: T")
                         .output("output: T"),
                       false)
                  .attr("Tshape: {int32, int64} = int32")
                  .shape_fn(shape_from_sizes(0)));
  ops.push_back(volume(op_def_builder("Conv3DBackpropFilterV2")
                         .input("input: T")
                         .input("filter_sizes: int32")
                         .input("out_backprop: T")
                         .output("output: T"),
                       false)
                  .shape_fn(shape_from_sizes(1)));
  for (const char* name : {"MaxPool3D", "AvgPool3D"})
    ops.push_back(
      volume(op_def_builder(name).input("input: T").output("output: T"), true)
        .shape_fn(pool3d_shape));
  // MaxPool3DGrad from the forward's input and output (each window's
  // gradient to its first maximum); AvgPool3DGrad from the input's shape.
  ops.push_back(volume(op_def_builder("MaxPool3DGrad")
                         .input("orig_input: TInput")
                         .input("orig_output: TInput")
                         .input("grad: T")
                         .output("output: T"),
                       true)
                  .attr("TInput: {float, double} = float")
                  .shape_fn([](shape_context& ctx) {
                    ctx.set_output(0, ctx.input(0));
                    return core::status::ok();
                  }));
  ops.push_back(volume(op_def_builder("AvgPool3DGrad")
                         .input("orig_input_shape: int32")
                         .input("grad: T")
                         .output("output: T"),
                       true)
                  .shape_fn(shape_from_sizes(0)));
  for (const auto& b : ops)
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
