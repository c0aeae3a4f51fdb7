// _FusedConvBatchNorm: a Conv2D or DepthwiseConv2dNative, its BiasAdd, an
// inference batch norm and Relu or Relu6 as one oneDNN convolution, the
// rest its post-ops -- the activations no longer make three more passes
// over memory (Keras' Conv2D / DepthwiseConv2D + BatchNormalization + ReLU
// blocks, once the learning phase's cond is gone).

#include <algorithm>
#include <string>
#include <vector>

#include "batch_norm_affine.hpp"
#include "onednn_conv.hpp"
#include "window.hpp"

namespace actorflow::ops::cpu {

namespace {

class fused_conv_batch_norm_kernel : public basic_kernel {
public:
  explicit fused_conv_batch_norm_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, false);
    constant_filter_ = ctx.attr_or("_constant_filter", false);
    depthwise_ = ctx.attr_or("depthwise", false);
    epsilon_ = static_cast<float>(ctx.attr_or("epsilon", 0.0001));
    pads_ = ctx.attr_or("pads", std::vector<int64_t>{});
    if (init_.is_ok() && !pads_.empty()
        && (pads_.size() != 4 || attrs_.same
            || *std::min_element(pads_.begin(), pads_.end()) < 0))
      init_ = core::invalid_argument_error(
        "pads are four sizes >= 0 [top, bottom, left, right] of a VALID "
        "convolution");
    std::vector<std::string> fused;
    if (init_.is_ok())
      init_ = ctx.get_attr("fused_ops", &fused);
    if (!init_.is_ok())
      return;
    auto at = fused.begin();
    bias_ = at != fused.end() && *at == "BiasAdd";
    at += bias_ ? 1 : 0;
    bool norm = at != fused.end() && *at == "FusedBatchNorm";
    at += norm ? 1 : 0;
    if (at != fused.end() && (*at == "Relu" || *at == "Relu6"))
      act_ = *at++ == "Relu" ? conv_epilogue::activation::relu
                             : conv_epilogue::activation::relu6;
    if (!norm || at != fused.end())
      init_ = core::unimplemented_error(
        "_FusedConvBatchNorm fuses [BiasAdd,] FusedBatchNorm[, Relu or "
        "Relu6], not ",
        core::to_string(core::attr_value{fused}));
    else if (ctx.attr_or("num_args", int64_t{0}) != (bias_ ? 5 : 4))
      init_ = core::invalid_argument_error("_FusedConvBatchNorm with ",
                                           bias_ ? "a bias" : "no bias",
                                           " takes ", bias_ ? 5 : 4, " args");
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& f = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, x.shape().rank() == 4 && f.shape().rank() == 4,
      core::invalid_argument_error(
        "_FusedConvBatchNorm needs a rank-4 input (NHWC) and filter, got ",
        x.shape().to_string(), " and ", f.shape().to_string()));
    auto cin = x.shape().dim(3);
    // Depthwise: [kh, kw, c, m] is the grouped HWIO filter of c groups.
    auto cout
      = depthwise_ ? f.shape().dim(2) * f.shape().dim(3) : f.shape().dim(3);
    int64_t groups = cin;
    if (depthwise_)
      ACTORFLOW_OP_REQUIRES(
        ctx, f.shape().dim(2) == cin,
        core::invalid_argument_error("the input has ", cin,
                                     " channels but the filter expects ",
                                     f.shape().dim(2)));
    else
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, common::conv_groups(cin, f.shape().dim(2), cout, &groups));
    auto first = static_cast<size_t>(bias_ ? 3 : 2);
    for (size_t i = 2; i < ctx.num_inputs(); ++i)
      ACTORFLOW_OP_REQUIRES(
        ctx, ctx.input(i).shape() == core::shape{cout},
        core::invalid_argument_error("arg ", i - 2, " has shape ",
                                     ctx.input(i).shape().to_string(),
                                     ", the output has ", cout, " channels"));
    auto h = window_of(x.shape().dim(1), f.shape().dim(0), 1);
    auto w = window_of(x.shape().dim(2), f.shape().dim(1), 2);
    auto s = conv_shape_of(x.shape().dim(0), cin, cout, groups, h, w);
    ACTORFLOW_OP_REQUIRES(
      ctx, onednn_conv::supports(s),
      core::unimplemented_error(
        "_FusedConvBatchNorm of this shape: ", x.shape().to_string(), " by ",
        f.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, {s.batch, h.out, w.out, cout}, &out));
    if (out->num_elements() == 0)
      return;
    // FusedBatchNorm's inference, rounding for rounding.
    std::vector<float> a(static_cast<size_t>(cout)), b(a.size());
    batch_norm_affine(
      cout, ctx.input(first).data<float>(), ctx.input(first + 1).data<float>(),
      ctx.input(first + 2).data<float>(), ctx.input(first + 3).data<float>(),
      epsilon_, a.data(), b.data());
    conv_epilogue post;
    post.bias = bias_ ? ctx.input(2).data<float>() : nullptr;
    post.scale = a.data();
    post.shift = b.data();
    post.act = act_;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, dnn_.forward(ctx, s, x.data<float>(), f.data<float>(), post,
                        out->mutable_data<float>(), constant_filter_));
  }

private:
  /// The window along dimension `d` (1: H, 2: W) of a `k`-tap filter over
  /// `in` positions, with the zeros of `pads_` around them.
  window window_of(int64_t in, int64_t k, int d) const {
    if (pads_.empty())
      return plan_window(in, k, attrs_.strides[static_cast<size_t>(d)],
                         attrs_.dilations[static_cast<size_t>(d)], attrs_.same);
    auto before = pads_[static_cast<size_t>(2 * d - 2)];
    auto after = pads_[static_cast<size_t>(2 * d - 1)];
    // VALID over the padded image, reading the image itself.
    auto w = plan_window(in + before + after, k,
                         attrs_.strides[static_cast<size_t>(d)],
                         attrs_.dilations[static_cast<size_t>(d)], false);
    w.in = in;
    w.pad = before;
    return w;
  }

  window_attrs attrs_;
  std::vector<int64_t> pads_; ///< [top, bottom, left, right], or none.
  bool depthwise_ = false;
  bool bias_ = false;
  float epsilon_ = 0.0001f;
  conv_epilogue::activation act_ = conv_epilogue::activation::none;
  /// The filter is a Const (the fusion pass's `_constant_filter`).
  bool constant_filter_ = false;
  onednn_conv dnn_;
};

} // namespace

void register_fused_conv_kernels(kernel_registry& r) {
  r.add("_FusedConvBatchNorm", device_type, core::dtype::float32,
        &kernel_registry::make_kernel<fused_conv_batch_norm_kernel>);
}

} // namespace actorflow::ops::cpu
