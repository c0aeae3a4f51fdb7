#pragma once

// Internal: how the windows of a convolution or pooling slide over an NHWC
// image, and their attrs, for the CPU's and the GPU's kernels.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/ops/kernel_construction.hpp"

namespace actorflow::ops::common {

/// How a window slides along one spatial dimension.
struct window {
  int64_t in = 0; ///< Input size.
  int64_t k = 1;  ///< Window size.
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t out = 0; ///< Output size.
  int64_t pad = 0; ///< Padding before the first element.
};

/// Plans a window with TensorFlow's SAME/VALID rules (SAME pads the
/// shortfall, the odd element after).
inline window plan_window(int64_t in, int64_t k, int64_t stride,
                          int64_t dilation, bool same) {
  window w{in, k, stride, dilation, 0, 0};
  auto effective = (k - 1) * dilation + 1;
  if (same) {
    w.out = (in + stride - 1) / stride;
    auto total = std::max<int64_t>((w.out - 1) * stride + effective - in, 0);
    w.pad = total / 2;
  } else {
    w.out = in < effective ? 0 : (in - effective) / stride + 1;
  }
  return w;
}

/// The groups of a convolution whose `in` input channels meet a filter
/// of `filter_in` input channels and `out` output channels (TensorFlow's
/// grouped Conv2D: `in / filter_in` groups, each of `filter_in` input and
/// `out / groups` output channels).
inline core::status conv_groups(int64_t in, int64_t filter_in, int64_t out,
                                int64_t* groups) {
  if (in == filter_in) {
    *groups = 1;
    return core::status::ok();
  }
  if (filter_in <= 0 || in % filter_in != 0)
    return core::invalid_argument_error(
      "Conv2D input has ", in, " channels, not a multiple of the filter's ",
      filter_in, " input channels");
  *groups = in / filter_in;
  if (out % *groups != 0)
    return core::invalid_argument_error(
      "Conv2D filter has ", out, " output channels, not a multiple of its ",
      *groups, " groups (", in, " input channels / ", filter_in, ")");
  return core::status::ok();
}

/// The strides/ksize/dilations/padding attrs of a windowed op.
struct window_attrs {
  std::vector<int64_t> strides;
  std::vector<int64_t> ksize{1, 1, 1, 1};
  std::vector<int64_t> dilations{1, 1, 1, 1};
  bool same = false;

  core::status read(kernel_construction& ctx, bool pooling) {
    std::string padding;
    ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("strides", &strides));
    ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("padding", &padding));
    if (pooling)
      ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("ksize", &ksize));
    else
      dilations = ctx.attr_or("dilations", dilations);
    if (padding != "SAME" && padding != "VALID")
      return core::invalid_argument_error("padding must be SAME or VALID");
    if (ctx.attr_or("data_format", std::string{"NHWC"}) != "NHWC")
      return core::unimplemented_error("only data_format NHWC is supported");
    for (const auto* v : {&strides, &ksize, &dilations})
      if (v->size() != 4 || (*v)[0] != 1 || (*v)[3] != 1 || (*v)[1] < 1
          || (*v)[2] < 1)
        return core::invalid_argument_error(
          "strides, ksize and dilations must be [1, h, w, 1] with h, w >= 1");
    same = padding == "SAME";
    return core::status::ok();
  }
};

} // namespace actorflow::ops::common
