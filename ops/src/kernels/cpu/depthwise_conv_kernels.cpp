// Depthwise convolution over NHWC tensors (TensorFlow's
// DepthwiseConv2dNative: every MobileNet and EfficientNet block) and its
// gradients with respect to its input and its filter: float32 as oneDNN's
// grouped convolution (its depthwise kernels), float64 by direct loops
// with the channels innermost.

#include "kernels.hpp"
#include "onednn_conv.hpp"
#include "window.hpp"

#include <algorithm>

namespace actorflow::ops::cpu {

namespace {

/// The geometry of one depthwise convolution: an input [batch, h, w, c], a
/// filter [kh, kw, c, m], an output [batch, out h, out w, c * m].
struct depthwise_shape {
  int64_t batch = 0, c = 0, m = 0;
  window h, w;

  int64_t in_image() const noexcept {
    return h.in * w.in * c;
  }

  int64_t out_image() const noexcept {
    return h.out * w.out * c * m;
  }
};

/// Reads and checks the shapes of input `x` (given by `xs`), filter `fs`
/// and, when not null, the output's gradient `dy`.
core::status plan(const window_attrs& attrs, const core::shape& xs,
                  const core::shape& fs, const core::shape* dy,
                  depthwise_shape* out) {
  if (xs.rank() != 4 || fs.rank() != 4)
    return core::invalid_argument_error(
      "DepthwiseConv2dNative needs a rank-4 input (NHWC) and filter [kh, kw, "
      "in, multiplier], got ",
      xs.to_string(), " and ", fs.to_string());
  if (fs.dim(2) != xs.dim(3))
    return core::invalid_argument_error(
      "DepthwiseConv2dNative input has ", xs.dim(3),
      " channels but the filter expects ", fs.dim(2));
  depthwise_shape s;
  s.batch = xs.dim(0);
  s.c = xs.dim(3);
  s.m = fs.dim(3);
  s.h = plan_window(xs.dim(1), fs.dim(0), attrs.strides[1], attrs.dilations[1],
                    attrs.same);
  s.w = plan_window(xs.dim(2), fs.dim(1), attrs.strides[2], attrs.dilations[2],
                    attrs.same);
  core::shape want{s.batch, s.h.out, s.w.out, s.c * s.m};
  if (dy != nullptr && *dy != want)
    return core::invalid_argument_error(
      "out_backprop has shape ", dy->to_string(),
      ", DepthwiseConv2dNative gives ", want.to_string());
  *out = s;
  return core::status::ok();
}

/// Calls `f(oy, ox, iy, ix)` for every output position whose filter tap
/// (`ky`, `kx`) falls inside the image.
template <class F>
void for_each_position(const depthwise_shape& s, int64_t ky, int64_t kx,
                       F&& f) {
  for (int64_t oy = 0; oy < s.h.out; ++oy) {
    auto iy = oy * s.h.stride - s.h.pad + ky * s.h.dilation;
    if (iy < 0 || iy >= s.h.in)
      continue;
    for (int64_t ox = 0; ox < s.w.out; ++ox) {
      auto ix = ox * s.w.stride - s.w.pad + kx * s.w.dilation;
      if (ix >= 0 && ix < s.w.in)
        f(oy, ox, iy, ix);
    }
  }
}

/// Calls `f(oy, ox, ky, kx, iy, ix)` for every output position and every
/// filter tap that falls inside the image.
template <class F>
void for_each_tap(const depthwise_shape& s, F&& f) {
  for (int64_t ky = 0; ky < s.h.k; ++ky)
    for (int64_t kx = 0; kx < s.w.k; ++kx)
      for_each_position(s, ky, kx,
                        [&](int64_t oy, int64_t ox, int64_t iy, int64_t ix) {
                          f(oy, ox, ky, kx, iy, ix);
                        });
}

/// The window attrs of every depthwise kernel (TensorFlow's EXPLICIT
/// padding is refused by name), and oneDNN, which computes float32 ones
/// as grouped convolutions: a group per input channel, of `m` outputs --
/// the filter [kh, kw, c, m] is HWIO with I = 1 and O = c * m as it is.
class depthwise_base : public basic_kernel {
public:
  explicit depthwise_base(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, false);
    constant_filter_ = ctx.attr_or("_constant_filter", false);
  }

protected:
  /// The grouped convolution `s` is, if oneDNN takes it.
  static bool grouped(const depthwise_shape& s, conv_shape* out) {
    *out = conv_shape_of(s.batch, s.c, s.c * s.m, s.c, s.h, s.w);
    return onednn_conv::supports(*out);
  }

  window_attrs attrs_;
  bool constant_filter_ = false; ///< The fusion pass's `_constant_filter`.
  onednn_conv dnn_;
};

/// DepthwiseConv2dNative: y[n, oy, ox, c * m + j] = sum over the window of
/// x[n, iy, ix, c] * f[ky, kx, c, j].
template <class T>
class depthwise_kernel : public depthwise_base {
public:
  using depthwise_base::depthwise_base;

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& f = ctx.input(1);
    depthwise_shape s;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             plan(attrs_, x.shape(), f.shape(), nullptr, &s));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      ctx.allocate_output(0, {s.batch, s.h.out, s.w.out, s.c * s.m}, &out));
    if constexpr (std::is_same_v<T, float>) {
      conv_shape g;
      if (grouped(s, &g)) {
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, dnn_.forward(ctx, g, x.data<float>(), f.data<float>(), {},
                            out->mutable_data<float>(), constant_filter_));
        return;
      }
    }
    const T* xp = x.data<T>();
    const T* fp = f.data<T>();
    T* yp = out->mutable_data<T>();
    std::fill_n(yp, out->num_elements(), T(0));
    auto cm = s.c * s.m;
    over_images(ctx, s.batch, out->num_elements() * s.h.k * s.w.k,
                [&](int64_t b0, int64_t b1) {
                  for (int64_t b = b0; b < b1; ++b) {
                    const T* xb = xp + b * s.in_image();
                    T* yb = yp + b * s.out_image();
                    for_each_tap(s, [&](int64_t oy, int64_t ox, int64_t ky,
                                        int64_t kx, int64_t iy, int64_t ix) {
                      const T* xi = xb + (iy * s.w.in + ix) * s.c;
                      const T* ft = fp + (ky * s.w.k + kx) * cm;
                      T* yo = yb + (oy * s.w.out + ox) * cm;
                      if (s.m == 1) {
                        for (int64_t c = 0; c < s.c; ++c)
                          yo[c] += xi[c] * ft[c];
                        return;
                      }
                      for (int64_t c = 0; c < s.c; ++c)
                        for (int64_t j = 0; j < s.m; ++j)
                          yo[c * s.m + j] += xi[c] * ft[c * s.m + j];
                    });
                  }
                });
  }
};

/// DepthwiseConv2dNativeBackpropInput (`Input`) and ...BackpropFilter: the
/// gradients of DepthwiseConv2dNative from its output's gradient; the
/// operand not given comes as its shape (input_sizes, filter_sizes).
template <class T, bool Input>
class depthwise_backprop_kernel : public depthwise_base {
public:
  using depthwise_base::depthwise_base;

  void compute(kernel_context& ctx) override {
    const auto& dy = ctx.input(2);
    auto sizes = read_ints(ctx.input(Input ? 0 : 1));
    ACTORFLOW_OP_REQUIRES(
      ctx, sizes.size() == 4,
      core::invalid_argument_error(Input ? "input_sizes" : "filter_sizes",
                                   " must have 4 elements"));
    core::shape xs = Input ? core::shape{sizes} : ctx.input(0).shape();
    core::shape fs = Input ? ctx.input(1).shape() : core::shape{sizes};
    depthwise_shape s;
    ACTORFLOW_OP_REQUIRES_OK(ctx, plan(attrs_, xs, fs, &dy.shape(), &s));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             ctx.allocate_output(0, Input ? xs : fs, &out));
    T* z = out->mutable_data<T>();
    if constexpr (std::is_same_v<T, float>) {
      conv_shape g;
      if (grouped(s, &g)) {
        ACTORFLOW_OP_REQUIRES_OK(ctx, dnn_.backward(ctx, g, Input, z));
        return;
      }
    }
    std::fill_n(z, out->num_elements(), T(0));
    const T* dyp = dy.data<T>();
    auto cm = s.c * s.m;
    auto work = dy.num_elements() * s.h.k * s.w.k;
    if constexpr (Input) {
      // Each image's gradient is its own: split by images.
      const T* fp = ctx.input(1).data<T>();
      over_images(ctx, s.batch, work, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          T* xb = z + b * s.in_image();
          const T* dyb = dyp + b * s.out_image();
          for_each_tap(s, [&](int64_t oy, int64_t ox, int64_t ky, int64_t kx,
                              int64_t iy, int64_t ix) {
            T* xi = xb + (iy * s.w.in + ix) * s.c;
            const T* ft = fp + (ky * s.w.k + kx) * cm;
            const T* g = dyb + (oy * s.w.out + ox) * cm;
            for (int64_t c = 0; c < s.c; ++c)
              for (int64_t j = 0; j < s.m; ++j)
                xi[c] += g[c * s.m + j] * ft[c * s.m + j];
          });
        }
      });
    } else {
      // Each filter tap's gradient is its own: split by taps.
      const T* xp = ctx.input(0).data<T>();
      auto taps = s.h.k * s.w.k;
      parallel_split split{&ctx, work >= parallel_threshold};
      auto parts = static_cast<int>(std::min<int64_t>(split.threads(), taps));
      split.run(parts, [&](int part) {
        for (auto tap = taps * part / parts; tap < taps * (part + 1) / parts;
             ++tap) {
          T* ft = z + tap * cm;
          for (int64_t b = 0; b < s.batch; ++b) {
            const T* xb = xp + b * s.in_image();
            const T* dyb = dyp + b * s.out_image();
            for_each_position(
              s, tap / s.w.k, tap % s.w.k,
              [&](int64_t oy, int64_t ox, int64_t iy, int64_t ix) {
                const T* xi = xb + (iy * s.w.in + ix) * s.c;
                const T* g = dyb + (oy * s.w.out + ox) * cm;
                for (int64_t c = 0; c < s.c; ++c)
                  for (int64_t j = 0; j < s.m; ++j)
                    ft[c * s.m + j] += xi[c] * g[c * s.m + j];
              });
          }
        }
      });
    }
  }
};

template <bool Input>
struct depthwise_backprop {
  template <class T>
  using kernel = depthwise_backprop_kernel<T, Input>;
};

} // namespace

void register_depthwise_conv_kernels(kernel_registry& r) {
  r.add_typed<depthwise_kernel, float, double>("DepthwiseConv2dNative",
                                               device_type);
  r.add_typed<depthwise_backprop<true>::kernel, float, double>(
    "DepthwiseConv2dNativeBackpropInput", device_type);
  r.add_typed<depthwise_backprop<false>::kernel, float, double>(
    "DepthwiseConv2dNativeBackpropFilter", device_type);
}

} // namespace actorflow::ops::cpu
