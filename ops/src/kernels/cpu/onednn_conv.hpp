#pragma once

// Internal: float32 convolutions through oneDNN.

#include <cstdint>
#include <memory>

#include "../common/window.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::cpu {

/// The geometry of a 2-D convolution of an NHWC input with an HWIO filter.
struct conv_shape {
  int64_t batch = 0, in_h = 0, in_w = 0, cin = 0;
  int64_t kh = 0, kw = 0, cout = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  /// Padding before and after the image (none after where VALID windows
  /// leave the last rows or columns unread).
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  /// Groups of cin / groups input and cout / groups output channels; the
  /// filter is then HWIO with I = cin / groups.
  int64_t groups = 1;

  /// The filter's elements.
  int64_t filter_size() const noexcept {
    return kh * kw * (cin / groups) * cout;
  }
};

/// What a forward convolution does to its output within oneDNN's kernel
/// (its post-ops: no pass of their own), in this order.
struct conv_epilogue {
  enum class activation { none, relu, relu6 };
  /// Added per output channel (BiasAdd), unless null.
  const float* bias = nullptr;
  /// Then y * scale + shift per output channel, unless null (an inference
  /// batch norm: scale = gamma / sqrt(var + epsilon), shift = beta - mean
  /// * scale, two roundings as FusedBatchNorm's kernel).
  const float* scale = nullptr;
  const float* shift = nullptr;
  /// Then Relu or Relu6.
  activation act = activation::none;
};

/// The geometry of a convolution of `groups` groups with windows `h` and
/// `w` over `batch` images.
conv_shape conv_shape_of(int64_t batch, int64_t cin, int64_t cout,
                         int64_t groups, const common::window& h,
                         const common::window& w);

/// Conv2D (grouped too) and its gradients for float32 through oneDNN's
/// convolution primitives, which pack straight from the image into their
/// JIT-compiled AVX2/AVX-512 kernels (no im2col copy).
///
/// One object per kernel keeps the primitives it made, by shape. The batch
/// is cut into slices over the device's pool (`parallel_split`), each run
/// by oneDNN on one OpenMP thread: no OpenMP team spins beside the actors.
/// A forward pass of fewer images than threads cuts each image's output
/// rows into bands instead.
class onednn_conv {
public:
  onednn_conv();

  ~onednn_conv();

  /// Whether oneDNN computes convolutions of shape `s` (padding after the
  /// image not negative, something to compute).
  static bool supports(const conv_shape& s) noexcept;

  /// y = conv(x, f), then `post`. With `constant_filter` (f never
  /// changes: a Const) the filter's reorder to oneDNN's layout is done
  /// once and kept.
  core::status forward(kernel_context& ctx, const conv_shape& s, const float* x,
                       const float* f, const conv_epilogue& post, float* y,
                       bool constant_filter = false);

  /// dx from dy and f (Conv2DBackpropInput).
  core::status backward_input(kernel_context& ctx, const conv_shape& s,
                              const float* dy, const float* f, float* dx);

  /// df from x and dy (Conv2DBackpropFilter).
  core::status backward_filter(kernel_context& ctx, const conv_shape& s,
                               const float* x, const float* dy, float* df);

  /// The gradient a Conv2DBackpropInput (`wrt_input`) or ...Filter-shaped
  /// op computes into `out`, from its inputs in `ctx`: the input (or its
  /// sizes), the filter (or its sizes), the output's gradient.
  core::status backward(kernel_context& ctx, const conv_shape& s,
                        bool wrt_input, float* out);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace actorflow::ops::cpu
