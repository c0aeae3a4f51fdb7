#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// The output size of a convolution or pooling window along one dimension,
/// or -1 when the input size is unknown.
int64_t window_output(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                      const std::string& padding) {
  if (in < 0)
    return -1;
  if (padding == "SAME")
    return (in + stride - 1) / stride;
  auto effective = (k - 1) * dilation + 1;
  return in < effective ? 0 : (in - effective) / stride + 1;
}

/// Checks the NHWC attrs shared by Conv2D and pooling: four strides (and
/// ksize/dilations), 1 for batch and channels, padding SAME or VALID.
core::status check_window_attrs(const shape_context& ctx,
                                std::vector<int64_t>* strides,
                                std::string* padding) {
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("strides", strides));
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("padding", padding));
  if (*padding != "SAME" && *padding != "VALID")
    return core::invalid_argument_error("padding must be SAME or VALID, got '",
                                        *padding, "'");
  if (ctx.attr_or("data_format", std::string{"NHWC"}) != "NHWC")
    return core::unimplemented_error("only data_format NHWC is supported");
  for (const char* name : {"strides", "ksize", "dilations"}) {
    auto v = ctx.attr_or(name, std::vector<int64_t>{1, 1, 1, 1});
    if (v.size() != 4 || v[0] != 1 || v[3] != 1 || v[1] < 1 || v[2] < 1)
      return core::invalid_argument_error(
        name, " must be [1, h, w, 1] with h, w >= 1, got ",
        core::shape{v}.to_string());
  }
  return core::status::ok();
}

core::status conv2d_shape(shape_context& ctx) {
  std::vector<int64_t> strides;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(check_window_attrs(ctx, &strides, &padding));
  auto dilations = ctx.attr_or("dilations", std::vector<int64_t>{1, 1, 1, 1});
  auto in = ctx.input(0);
  auto filter = ctx.input(1);
  if (!in.known_rank())
    in = core::shape{-1, -1, -1, -1};
  if (!filter.known_rank())
    filter = core::shape{-1, -1, -1, -1};
  if (in.rank() != 4 || filter.rank() != 4)
    return core::invalid_argument_error(
      "Conv2D needs a rank-4 input (NHWC) and filter (HWIO), got ",
      in.to_string(), " and ", filter.to_string());
  // Grouped when the input has a multiple of the filter's input channels.
  if (in.dim(3) >= 0 && filter.dim(2) >= 0 && in.dim(3) != filter.dim(2)) {
    if (filter.dim(2) == 0 || in.dim(3) % filter.dim(2) != 0)
      return core::invalid_argument_error(
        "Conv2D input has ", in.dim(3),
        " channels, not a multiple of the filter's ", filter.dim(2),
        " input channels");
    auto groups = in.dim(3) / filter.dim(2);
    if (filter.dim(3) >= 0 && filter.dim(3) % groups != 0)
      return core::invalid_argument_error(
        "Conv2D filter has ", filter.dim(3),
        " output channels, not a multiple of its ", groups, " groups");
  }
  auto out_dim = [&](int d) {
    return filter.dim(d - 1) < 0
             ? int64_t{-1}
             : window_output(in.dim(d), filter.dim(d - 1),
                             strides[static_cast<size_t>(d)],
                             dilations[static_cast<size_t>(d)], padding);
  };
  ctx.set_output(0,
                 core::shape{in.dim(0), out_dim(1), out_dim(2), filter.dim(3)});
  return core::status::ok();
}

/// _FusedConvBatchNorm: its convolution's, over the image its `pads`
/// make.
core::status fused_conv_batch_norm_shape(shape_context& ctx);

/// DepthwiseConv2dNative: an NHWC input, a filter [kh, kw, in, multiplier],
/// an output of in * multiplier channels.
core::status depthwise_shape(shape_context& ctx) {
  std::vector<int64_t> strides;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(check_window_attrs(ctx, &strides, &padding));
  auto dilations = ctx.attr_or("dilations", std::vector<int64_t>{1, 1, 1, 1});
  auto in
    = ctx.input(0).known_rank() ? ctx.input(0) : core::shape{-1, -1, -1, -1};
  auto filter
    = ctx.input(1).known_rank() ? ctx.input(1) : core::shape{-1, -1, -1, -1};
  if (in.rank() != 4 || filter.rank() != 4)
    return core::invalid_argument_error(
      "DepthwiseConv2dNative needs a rank-4 input (NHWC) and filter [kh, kw, "
      "in, multiplier], got ",
      in.to_string(), " and ", filter.to_string());
  if (in.dim(3) >= 0 && filter.dim(2) >= 0 && in.dim(3) != filter.dim(2))
    return core::invalid_argument_error(
      "DepthwiseConv2dNative input has ", in.dim(3),
      " channels but the filter expects ", filter.dim(2));
  auto out_dim = [&](int d) {
    return filter.dim(d - 1) < 0
             ? int64_t{-1}
             : window_output(in.dim(d), filter.dim(d - 1),
                             strides[static_cast<size_t>(d)],
                             dilations[static_cast<size_t>(d)], padding);
  };
  auto channels = in.dim(3) >= 0 ? in.dim(3) : filter.dim(2);
  auto out_channels = channels < 0 || filter.dim(3) < 0
                        ? int64_t{-1}
                        : channels * filter.dim(3);
  ctx.set_output(0,
                 core::shape{in.dim(0), out_dim(1), out_dim(2), out_channels});
  return core::status::ok();
}

core::status fused_conv_batch_norm_shape(shape_context& ctx) {
  auto pads = ctx.attr_or("pads", std::vector<int64_t>{});
  auto in = ctx.input(0);
  if (!pads.empty()) {
    if (pads.size() != 4)
      return core::invalid_argument_error("pads are [top, bottom, left, "
                                          "right], got ",
                                          pads.size(), " values");
    if (in.known_rank() && in.rank() == 4) {
      auto dims = in.dims();
      for (int d : {1, 2})
        if (dims[static_cast<size_t>(d)] >= 0)
          dims[static_cast<size_t>(d)]
            += pads[static_cast<size_t>(2 * d - 2)]
               + pads[static_cast<size_t>(2 * d - 1)];
      in = core::shape{dims};
    }
  }
  std::vector<core::shape> inputs{in};
  for (size_t i = 1; i < ctx.num_inputs(); ++i)
    inputs.push_back(ctx.input(i));
  shape_context padded{ctx.node(), std::move(inputs), 1};
  ACTORFLOW_RETURN_IF_ERROR(ctx.attr_or("depthwise", false)
                              ? depthwise_shape(padded)
                              : conv2d_shape(padded));
  ctx.set_output(0, padded.outputs()[0]);
  return core::status::ok();
}

core::status pool_shape(shape_context& ctx) {
  std::vector<int64_t> strides, ksize;
  std::string padding;
  ACTORFLOW_RETURN_IF_ERROR(check_window_attrs(ctx, &strides, &padding));
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("ksize", &ksize));
  auto in = ctx.input(0);
  if (!in.known_rank())
    in = core::shape{-1, -1, -1, -1};
  if (in.rank() != 4)
    return core::invalid_argument_error("pooling needs a rank-4 input (NHWC), "
                                        "got ",
                                        in.to_string());
  ctx.set_output(
    0, core::shape{in.dim(0),
                   window_output(in.dim(1), ksize[1], strides[1], 1, padding),
                   window_output(in.dim(2), ksize[2], strides[2], 1, padding),
                   in.dim(3)});
  return core::status::ok();
}

/// Shape function: input 0 must have at least `rank` dimensions.
template <int Rank>
core::status at_least_rank(shape_context& ctx) {
  const auto& in = ctx.input(0);
  if (in.known_rank() && in.rank() < Rank)
    return core::invalid_argument_error("input must have rank >= ", Rank,
                                        ", got ", in.to_string());
  return unchanged_shape(ctx);
}

core::status bias_add_shape(shape_context& ctx) {
  const auto& v = ctx.input(0);
  const auto& b = ctx.input(1);
  if (b.known_rank() && b.rank() != 1)
    return core::invalid_argument_error("BiasAdd bias must be a vector, got ",
                                        b.to_string());
  if (v.known_rank() && v.rank() < 1)
    return core::invalid_argument_error("BiasAdd value must have rank >= 1");
  if (v.known_rank() && b.known_rank() && v.dim(v.rank() - 1) >= 0
      && b.dim(0) >= 0 && v.dim(v.rank() - 1) != b.dim(0))
    return core::invalid_argument_error("BiasAdd bias has ", b.dim(0),
                                        " elements, the last dimension of ",
                                        v.to_string(), " differs");
  ctx.set_output(0, v);
  return core::status::ok();
}

/// Cross entropy: loss [batch], backprop [batch, classes].
core::status xent_shape(shape_context& ctx) {
  auto logits = ctx.input(0);
  if (!logits.known_rank())
    logits = core::shape{-1, -1};
  if (logits.rank() != 2)
    return core::invalid_argument_error("logits must be [batch, classes], got ",
                                        logits.to_string());
  const auto& labels = ctx.input(1);
  bool sparse = ctx.node().op[0] == 'S' && ctx.node().op[1] == 'p';
  auto want = sparse ? core::shape{logits.dim(0)} : logits;
  if (!labels.compatible_with(want))
    return core::invalid_argument_error("labels must be ", want.to_string(),
                                        " for logits ", logits.to_string(),
                                        ", got ", labels.to_string());
  ctx.set_output(0, core::shape{logits.dim(0)});
  ctx.set_output(1, logits);
  return core::status::ok();
}

core::status top_k_shape(shape_context& ctx) {
  const auto& in = ctx.input(0);
  int64_t k = -1;
  std::vector<int64_t> kv;
  if (ctx.num_inputs() == 2 && ctx.input_ints(1, &kv) && kv.size() == 1)
    k = kv[0];
  else if (ctx.num_inputs() == 1)
    k = ctx.attr_or("k", int64_t{-1});
  core::shape out = core::shape::unknown();
  if (in.known_rank()) {
    if (in.rank() < 1)
      return core::invalid_argument_error("TopK needs rank >= 1");
    auto n = in.dim(in.rank() - 1);
    if (k >= 0 && n >= 0 && k > n)
      return core::invalid_argument_error("TopK k = ", k,
                                          " is larger than the "
                                          "last dimension of ",
                                          in.to_string());
    auto dims = in.dims();
    dims.back() = k;
    out = core::shape{std::move(dims)};
  }
  ctx.set_output(0, out);
  ctx.set_output(1, out);
  return core::status::ok();
}

core::status in_top_k_shape(shape_context& ctx) {
  const auto& p = ctx.input(0);
  if (p.known_rank() && p.rank() != 2)
    return core::invalid_argument_error("predictions must be [batch, classes]");
  ctx.set_output(0, core::shape{p.known_rank() ? p.dim(0) : -1});
  return core::status::ok();
}

core::status scalar_output(shape_context& ctx) {
  ctx.set_output(0, core::shape{});
  return core::status::ok();
}

} // namespace

/// The attrs every windowed op shares: T, the window (ksize for pooling,
/// dilations for convolution), strides, padding and the layout; and two
/// of TensorFlow's that its graphs carry: `explicit_paddings` (only for
/// padding "EXPLICIT", which actorflow lacks) and, for convolutions,
/// `use_cudnn_on_gpu` (a hint).
op_def_builder windowed(op_def_builder b, bool pooling) {
  b.attr("T: {float, double}");
  if (pooling)
    b.attr("ksize: list(int)");
  b.attr("strides: list(int)")
    .attr("padding: string")
    .attr("data_format: string = 'NHWC'")
    .attr("explicit_paddings: list(int) = []");
  if (!pooling)
    b.attr("dilations: list(int) = [1, 1, 1, 1]")
      .attr("use_cudnn_on_gpu: bool = true");
  return b;
}

/// A gradient op's output: the rank-4 shape its int input `i` holds, when
/// that input is a constant.
op_def::shape_fn shape_from_sizes(size_t i) {
  return [i](shape_context& ctx) {
    std::vector<int64_t> sizes;
    ctx.set_output(0, ctx.input_ints(i, &sizes) && sizes.size() == 4
                        ? core::shape{sizes}
                        : core::shape{-1, -1, -1, -1});
    return core::status::ok();
  };
}

core::status register_nn_ops(op_registry& r) {
  const char* floats = "T: {float, double}";
  std::vector<op_def_builder> ops;
  for (const char* name : {"Relu", "Relu6"})
    ops.push_back(op_def_builder(name)
                    .input("features: T")
                    .output("activations: T")
                    .attr("T: {float, double, int32, int64}")
                    .shape_fn(unchanged_shape));
  for (const char* name : {"Elu", "Selu", "Softplus", "Softsign"})
    ops.push_back(op_def_builder(name)
                    .input("features: T")
                    .output("activations: T")
                    .attr(floats)
                    .shape_fn(unchanged_shape));
  // max(x, alpha x) for alpha < 1 (Keras' LeakyReLU).
  ops.push_back(op_def_builder("LeakyRelu")
                  .input("features: T")
                  .output("activations: T")
                  .attr("alpha: float = 0.2")
                  .attr(floats)
                  .shape_fn(unchanged_shape));
  ops.push_back(op_def_builder("Softmax")
                  .input("logits: T")
                  .output("softmax: T")
                  .attr(floats)
                  .shape_fn(at_least_rank<1>));
  ops.push_back(op_def_builder("LogSoftmax")
                  .input("logits: T")
                  .output("logsoftmax: T")
                  .attr(floats)
                  .shape_fn(at_least_rank<1>));
  ops.push_back(op_def_builder("BiasAdd")
                  .input("value: T")
                  .input("bias: T")
                  .output("output: T")
                  .attr("T: {float, double, int32, int64}")
                  .attr("data_format: string = 'NHWC'")
                  .shape_fn(bias_add_shape));
  ops.push_back(windowed(op_def_builder("Conv2D")
                           .input("input: T")
                           .input("filter: T")
                           .output("output: T"),
                         false)
                  .shape_fn(conv2d_shape));
  // Conv2D, BiasAdd and optionally Relu in one kernel (TensorFlow's
  // remapper makes the same op): written by the fusion pass, never by
  // users. `fused_ops` is ["BiasAdd"] or ["BiasAdd", "Relu"].
  ops.push_back(windowed(op_def_builder("_FusedConv2D")
                           .input("input: T")
                           .input("filter: T")
                           .input("bias: T")
                           .output("output: T"),
                         false)
                  .attr("fused_ops: list(string)")
                  .shape_fn(conv2d_shape));
  // Conv2D or (with `depthwise`) DepthwiseConv2dNative, optionally
  // BiasAdd, an inference FusedBatchNorm, optionally Relu or Relu6, in one
  // kernel: written by the fusion pass, never by users. `fused_ops` names
  // them ("BiasAdd", "FusedBatchNorm", "Relu" or "Relu6"); `args` are the
  // bias if fused, then the batch norm's scale, offset, mean and variance;
  // `pads` ([top, bottom, left, right]) are zeros around the image that a
  // VALID convolution reads as if a Pad had added them.
  ops.push_back(windowed(op_def_builder("_FusedConvBatchNorm")
                           .input("input: T")
                           .input("filter: T")
                           .input("args: num_args * T")
                           .output("output: T"),
                         false)
                  .attr("num_args: int")
                  .attr("fused_ops: list(string)")
                  .attr("epsilon: float = 0.0001")
                  .attr("depthwise: bool = false")
                  .attr("pads: list(int) = []")
                  .shape_fn(fused_conv_batch_norm_shape));
  // One filter per input channel (`multiplier` outputs each): MobileNet's
  // and EfficientNet's depthwise convolutions.
  ops.push_back(windowed(op_def_builder("DepthwiseConv2dNative")
                           .input("input: T")
                           .input("filter: T")
                           .output("output: T"),
                         false)
                  .shape_fn(depthwise_shape));
  // The convolutions' gradients with respect to their input and their
  // filter; the forward's other operand is given by its shape.
  for (std::string conv : {"Conv2D", "DepthwiseConv2dNative"}) {
    ops.push_back(windowed(op_def_builder(conv + "BackpropInput")
                             .input("input_sizes: int32")
                             .input("filter: T")
                             .input("out_backprop: T")
                             .output("output: T"),
                           false)
                    .shape_fn(shape_from_sizes(0)));
    ops.push_back(windowed(op_def_builder(conv + "BackpropFilter")
                             .input("input: T")
                             .input("filter_sizes: int32")
                             .input("out_backprop: T")
                             .output("output: T"),
                           false)
                    .shape_fn(shape_from_sizes(1)));
  }
  for (const char* name : {"MaxPool", "AvgPool"})
    ops.push_back(
      windowed(op_def_builder(name).input("value: T").output("output: T"), true)
        .shape_fn(pool_shape));
  // The pooling gradients: MaxPoolGrad from the forward's input and
  // output, AvgPoolGrad from the input's shape; both give the input's
  // shape.
  ops.push_back(windowed(op_def_builder("MaxPoolGrad")
                           .input("orig_input: T")
                           .input("orig_output: T")
                           .input("grad: T")
                           .output("output: T"),
                         true)
                  .shape_fn(unchanged_shape));
  ops.push_back(windowed(op_def_builder("AvgPoolGrad")
                           .input("orig_input_shape: int32")
                           .input("grad: T")
                           .output("output: T"),
                         true)
                  .shape_fn(shape_from_sizes(0)));
  ops.push_back(op_def_builder("SoftmaxCrossEntropyWithLogits")
                  .input("features: T")
                  .input("labels: T")
                  .output("loss: T")
                  .output("backprop: T")
                  .attr(floats)
                  .shape_fn(xent_shape));
  ops.push_back(op_def_builder("SparseSoftmaxCrossEntropyWithLogits")
                  .input("features: T")
                  .input("labels: Tlabels")
                  .output("loss: T")
                  .output("backprop: T")
                  .attr(floats)
                  .attr("Tlabels: {int32, int64} = int64")
                  .shape_fn(xent_shape));
  ops.push_back(op_def_builder("L2Loss")
                  .input("t: T")
                  .output("output: T")
                  .attr(floats)
                  .shape_fn(scalar_output));
  ops.push_back(op_def_builder("TopKV2")
                  .input("input: T")
                  .input("k: int32")
                  .output("values: T")
                  .output("indices: int32")
                  .attr("T: {float, double, int32, int64}")
                  .attr("sorted: bool = true")
                  .shape_fn(top_k_shape));
  ops.push_back(op_def_builder("TopK")
                  .input("input: T")
                  .output("values: T")
                  .output("indices: int32")
                  .attr("T: {float, double, int32, int64}")
                  .attr("k: int")
                  .attr("sorted: bool = true")
                  .shape_fn(top_k_shape));
  ops.push_back(op_def_builder("InTopKV2")
                  .input("predictions: float")
                  .input("targets: T")
                  .input("k: T")
                  .output("precision: bool")
                  .attr("T: {int32, int64} = int32")
                  .shape_fn(in_top_k_shape));
  ops.push_back(op_def_builder("InTopK")
                  .input("predictions: float")
                  .input("targets: T")
                  .output("precision: bool")
                  .attr("T: {int32, int64} = int32")
                  .attr("k: int")
                  .shape_fn(in_top_k_shape));
  // Dropout: y = x * mask, with mask 0 (probability `rate`) or 1/(1-rate),
  // drawn from the op's seeds; the mask is an output so that the gradient
  // can reuse it.
  ops.push_back(op_def_builder("Dropout")
                  .input("x: T")
                  .output("y: T")
                  .output("mask: T")
                  .attr(floats)
                  .attr("rate: float")
                  .attr("seed: int = 0")
                  .attr("seed2: int = 0")
                  .shape_fn(unchanged_shape)
                  .stateful());
  ops.push_back(op_def_builder("CheckNumerics")
                  .input("tensor: T")
                  .output("output: T")
                  .attr("T: {float16, bfloat16, float, double}")
                  .attr("message: string = ''")
                  .shape_fn(unchanged_shape));
  // Fails the step unless condition holds, showing the data tensors (up to
  // `summarize` elements each).
  ops.push_back(op_def_builder("Assert")
                  .input("condition: bool")
                  .input("data: T")
                  .attr("T: list(type)")
                  .attr("summarize: int = 3")
                  .stateful());
  for (const auto& b : ops)
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
