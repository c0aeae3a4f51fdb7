// Convolution and pooling over NHWC tensors: Conv2D and its gradients with
// respect to its input and filter (float32 through oneDNN; float64, and
// VALID windows oneDNN does not take, by im2col and OpenBLAS GEMMs),
// MaxPool and AvgPool.

#include "blas.hpp"
#include "kernels.hpp"
#include "onednn_conv.hpp"
#include "parallel_split.hpp"

#include <algorithm>
#include <limits>
#include <mutex>

namespace actorflow::ops::cpu {

namespace {

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
window plan_window(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                   bool same) {
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

/// The geometry of a convolution with windows `h` and `w`.
conv_shape shape_of(int64_t batch, int64_t cin, int64_t cout, const window& h,
                    const window& w) {
  conv_shape s;
  s.batch = batch;
  s.in_h = h.in;
  s.in_w = w.in;
  s.cin = cin;
  s.kh = h.k;
  s.kw = w.k;
  s.cout = cout;
  s.out_h = h.out;
  s.out_w = w.out;
  s.stride_h = h.stride;
  s.stride_w = w.stride;
  s.dilation_h = h.dilation;
  s.dilation_w = w.dilation;
  s.pad_top = h.pad;
  s.pad_left = w.pad;
  s.pad_bottom
    = (h.out - 1) * h.stride + (h.k - 1) * h.dilation + 1 - h.in - h.pad;
  s.pad_right
    = (w.out - 1) * w.stride + (w.k - 1) * w.dilation + 1 - w.in - w.pad;
  return s;
}

/// Calls `f(b0, b1)` for blocks of images [b0, b1) covering the batch, over
/// the device's pool when the work (`elements` touched) is large enough.
template <class F>
void over_images(kernel_context& ctx, int64_t batch, int64_t elements, F f) {
  parallel_split split{&ctx, elements >= parallel_threshold};
  auto parts = static_cast<int>(std::min<int64_t>(split.threads(), batch));
  split.run(parts, [&](int part) {
    f(batch * part / parts, batch * (part + 1) / parts);
  });
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

/// C (+)= op(A) * op(B) for row-major A [m, k] (or [k, m] with
/// `trans_a`), B [k, n] (or [n, k] with `trans_b`).
template <class T>
void gemm_t(kernel_context& ctx, bool trans_a, bool trans_b, int64_t m,
            int64_t n, int64_t k, const T* a, const T* b, T beta, T* c) {
  gemm<T>(&ctx, trans_a, trans_b, m, n, k, a, trans_a ? m : k, b,
          trans_b ? k : n, beta, c, n);
}

/// Conv2D (and _FusedConv2D, with BiasAdd and maybe Relu after it): float32
/// through oneDNN; otherwise, for a chunk of images, lays every output
/// position's receptive field out as a row (im2col, zeros where the window
/// leaves the image), then multiplies by the filter seen as
/// [kh * kw * in, out].
template <class T>
class conv2d_kernel : public basic_kernel {
public:
  explicit conv2d_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, false);
    if (!init_.is_ok() || ctx.node().op != "_FusedConv2D")
      return;
    std::vector<std::string> fused;
    init_ = ctx.get_attr("fused_ops", &fused);
    if (!init_.is_ok())
      return;
    fused_bias_ = true;
    if (fused == std::vector<std::string>{"BiasAdd", "Relu"})
      fused_relu_ = true;
    else if (fused != std::vector<std::string>{"BiasAdd"})
      init_ = core::unimplemented_error(
        "_FusedConv2D fuses BiasAdd or BiasAdd and Relu, not ",
        core::to_string(core::attr_value{fused}));
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& f = ctx.input(1);
    const T* bias = nullptr;
    if (fused_bias_) {
      const auto& b = ctx.input(2);
      ACTORFLOW_OP_REQUIRES(
        ctx,
        b.shape().rank() == 1 && f.shape().rank() == 4
          && b.shape().dim(0) == f.shape().dim(3),
        core::invalid_argument_error(
          "_FusedConv2D needs a bias as long as the filter's output "
          "channels, got ",
          b.shape().to_string(), " for filter ", f.shape().to_string()));
      bias = b.data<T>();
    }
    ACTORFLOW_OP_REQUIRES(
      ctx, x.shape().rank() == 4 && f.shape().rank() == 4,
      core::invalid_argument_error(
        "Conv2D needs a rank-4 input (NHWC) and filter (HWIO), got ",
        x.shape().to_string(), " and ", f.shape().to_string()));
    auto batch = x.shape().dim(0), cin = x.shape().dim(3);
    auto kh = f.shape().dim(0), kw = f.shape().dim(1), cout = f.shape().dim(3);
    ACTORFLOW_OP_REQUIRES(
      ctx, f.shape().dim(2) == cin,
      core::invalid_argument_error("Conv2D input has ", cin,
                                   " channels but the filter expects ",
                                   f.shape().dim(2)));
    auto h = plan_window(x.shape().dim(1), kh, attrs_.strides[1],
                         attrs_.dilations[1], attrs_.same);
    auto w = plan_window(x.shape().dim(2), kw, attrs_.strides[2],
                         attrs_.dilations[2], attrs_.same);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, {batch, h.out, w.out, cout}, &out));
    auto positions = h.out * w.out;
    auto depth = kh * kw * cin;
    if (out->num_elements() == 0)
      return;
    if (depth == 0) {
      std::fill_n(out->mutable_data<T>(), out->num_elements(), T(0));
      finish(bias, out);
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      auto s = shape_of(batch, cin, cout, h, w);
      if (onednn_conv::supports(s)) {
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, dnn_.forward(ctx, s, x.data<float>(), f.data<float>(), bias,
                            fused_relu_, out->mutable_data<float>()));
        return;
      }
    }
    // Images per GEMM: enough rows to keep the BLAS busy, few enough for
    // the column buffer (~8 MB) to stay in the last-level cache.
    int64_t chunk = std::clamp<int64_t>(
      (int64_t{2} << 20) / std::max<int64_t>(positions * depth, 1), 1, batch);
    auto cols = take_buffer();
    cols.resize(static_cast<size_t>(chunk * positions * depth));
    const T* xp = x.data<T>();
    for (int64_t b0 = 0; b0 < batch; b0 += chunk) {
      auto nb = std::min(chunk, batch - b0);
      // Serial: OpenBLAS's threads spin between calls, so spreading this
      // copy over the device's threads measured slower (docs/performance.md).
      T* col = cols.data();
      for (int64_t b = b0; b < b0 + nb; ++b)
        for (int64_t oy = 0; oy < h.out; ++oy)
          for (int64_t ox = 0; ox < w.out; ++ox)
            for (int64_t ky = 0; ky < kh; ++ky) {
              auto iy = oy * h.stride - h.pad + ky * h.dilation;
              for (int64_t kx = 0; kx < kw; ++kx, col += cin) {
                auto ix = ox * w.stride - w.pad + kx * w.dilation;
                if (iy < 0 || iy >= h.in || ix < 0 || ix >= w.in)
                  std::fill_n(col, cin, T(0));
                else
                  std::copy_n(xp + ((b * h.in + iy) * w.in + ix) * cin, cin,
                              col);
              }
            }
      gemm_t<T>(ctx, false, false, nb * positions, cout, depth, cols.data(),
                f.data<T>(), T(0),
                out->mutable_data<T>() + b0 * positions * cout);
    }
    give_buffer(std::move(cols));
    finish(bias, out);
  }

private:
  /// _FusedConv2D past oneDNN: adds `bias` to every output position, then
  /// Relu if fused.
  void finish(const T* bias, core::tensor* out) const {
    if (bias == nullptr)
      return;
    auto cout = out->shape().dim(3);
    T* y = out->mutable_data<T>();
    for (int64_t i = 0; i < out->num_elements(); i += cout)
      for (int64_t c = 0; c < cout; ++c) {
        auto v = y[i + c] + bias[c];
        y[i + c] = fused_relu_ && v < T(0) ? T(0) : v;
      }
  }

  /// An im2col buffer: one kept from an earlier call if there is one (the
  /// kernel may run for several steps or iterations at once).
  std::vector<T> take_buffer() {
    std::lock_guard<std::mutex> guard{mtx_};
    if (spare_.empty())
      return {};
    auto result = std::move(spare_.back());
    spare_.pop_back();
    return result;
  }

  void give_buffer(std::vector<T> cols) {
    std::lock_guard<std::mutex> guard{mtx_};
    spare_.push_back(std::move(cols));
  }

  window_attrs attrs_;
  bool fused_bias_ = false; ///< _FusedConv2D: add the bias input.
  bool fused_relu_ = false; ///< _FusedConv2D: then Relu.
  onednn_conv dnn_;
  std::mutex mtx_;
  std::vector<std::vector<T>> spare_; ///< im2col buffers, kept across calls.
};

/// Conv2DBackpropInput (`Input` true) and Conv2DBackpropFilter: the
/// gradients of Conv2D with respect to its input and its filter, from the
/// gradient of its output. Per image, the receptive fields as rows (as
/// Conv2D's im2col): the filter's gradient is fields^T * dy, the input's
/// is dy * filter^T scattered back onto the image (col2im).
template <class T, bool Input>
class conv2d_backprop_kernel : public basic_kernel {
public:
  explicit conv2d_backprop_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, false);
  }

  void compute(kernel_context& ctx) override {
    const auto& dy = ctx.input(2);
    auto sizes = read_ints(ctx.input(Input ? 0 : 1));
    ACTORFLOW_OP_REQUIRES(
      ctx, sizes.size() == 4,
      core::invalid_argument_error(Input ? "input_sizes" : "filter_sizes",
                                   " must have 4 elements"));
    core::shape xs = Input ? core::shape{sizes} : ctx.input(0).shape();
    core::shape fs = Input ? ctx.input(1).shape() : core::shape{sizes};
    ACTORFLOW_OP_REQUIRES(
      ctx, xs.rank() == 4 && fs.rank() == 4 && dy.shape().rank() == 4,
      core::invalid_argument_error("Conv2D gradients need rank-4 shapes"));
    auto batch = xs.dim(0), cin = xs.dim(3);
    auto kh = fs.dim(0), kw = fs.dim(1), cout = fs.dim(3);
    ACTORFLOW_OP_REQUIRES(ctx, fs.dim(2) == cin,
                          core::invalid_argument_error("input has ", cin,
                                                       " channels, the filter ",
                                                       fs.dim(2)));
    auto h = plan_window(xs.dim(1), kh, attrs_.strides[1], attrs_.dilations[1],
                         attrs_.same);
    auto w = plan_window(xs.dim(2), kw, attrs_.strides[2], attrs_.dilations[2],
                         attrs_.same);
    ACTORFLOW_OP_REQUIRES(
      ctx, dy.shape() == core::shape({batch, h.out, w.out, cout}),
      core::invalid_argument_error(
        "out_backprop has shape ", dy.shape().to_string(), ", Conv2D gives ",
        core::shape({batch, h.out, w.out, cout}).to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             ctx.allocate_output(0, Input ? xs : fs, &out));
    T* z = out->mutable_data<T>();
    if constexpr (std::is_same_v<T, float>) {
      auto s = shape_of(batch, cin, cout, h, w);
      if (onednn_conv::supports(s)) {
        const float* dyp = dy.data<float>();
        ACTORFLOW_OP_REQUIRES_OK(
          ctx,
          Input
            ? dnn_.backward_input(ctx, s, dyp, ctx.input(1).data<float>(), z)
            : dnn_.backward_filter(ctx, s, ctx.input(0).data<float>(), dyp, z));
        return;
      }
    }
    std::fill_n(z, out->num_elements(), T(0));
    auto positions = h.out * w.out;
    auto depth = kh * kw * cin;
    if (positions == 0 || depth == 0 || cout == 0)
      return;
    std::vector<T> cols(static_cast<size_t>(positions * depth));
    const T* dyp = dy.data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      const T* dyb = dyp + b * positions * cout;
      if constexpr (Input) {
        // fields' gradient = dy [positions, cout] * filter^T [cout, depth].
        gemm_t<T>(ctx, false, true, positions, depth, cout, dyb,
                  ctx.input(1).data<T>(), T(0), cols.data());
        T* xb = z + b * xs.dim(1) * xs.dim(2) * cin;
        walk(
          h, w, kh, kw, cin,
          [&](int64_t iy, int64_t ix, const T* col) {
            T* dst = xb + (iy * w.in + ix) * cin;
            for (int64_t c = 0; c < cin; ++c)
              dst[c] += col[c];
          },
          cols.data());
      } else {
        const T* xb = ctx.input(0).data<T>() + b * xs.dim(1) * xs.dim(2) * cin;
        std::fill(cols.begin(), cols.end(), T(0));
        walk(
          h, w, kh, kw, cin,
          [&](int64_t iy, int64_t ix, T* col) {
            std::copy_n(xb + (iy * w.in + ix) * cin, cin, col);
          },
          cols.data());
        // filter's gradient += fields^T [depth, positions] * dy.
        gemm_t<T>(ctx, true, false, depth, cout, positions, cols.data(), dyb,
                  T(1), z);
      }
    }
  }

private:
  /// Calls `f(iy, ix, col)` for every in-image element of every receptive
  /// field, `col` pointing at its `cin` values in the fields' rows.
  template <class Ptr, class F>
  static void walk(const window& h, const window& w, int64_t kh, int64_t kw,
                   int64_t cin, F&& f, Ptr cols) {
    auto col = cols;
    for (int64_t oy = 0; oy < h.out; ++oy)
      for (int64_t ox = 0; ox < w.out; ++ox)
        for (int64_t ky = 0; ky < kh; ++ky) {
          auto iy = oy * h.stride - h.pad + ky * h.dilation;
          for (int64_t kx = 0; kx < kw; ++kx, col += cin) {
            auto ix = ox * w.stride - w.pad + kx * w.dilation;
            if (iy >= 0 && iy < h.in && ix >= 0 && ix < w.in)
              f(iy, ix, col);
          }
        }
  }

  window_attrs attrs_;
  onednn_conv dnn_;
};

template <bool Input>
struct conv_backprop {
  template <class T>
  using kernel = conv2d_backprop_kernel<T, Input>;
};

/// MaxPool and AvgPool; padded positions are skipped (AvgPool divides by
/// the number of positions inside the image, as TensorFlow does).
template <class T, bool Max>
class pool_kernel : public basic_kernel {
public:
  explicit pool_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, true);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(
      ctx, x.shape().rank() == 4,
      core::invalid_argument_error("pooling needs a rank-4 input (NHWC), got ",
                                   x.shape().to_string()));
    auto batch = x.shape().dim(0), c = x.shape().dim(3);
    auto h = plan_window(x.shape().dim(1), attrs_.ksize[1], attrs_.strides[1],
                         1, attrs_.same);
    auto w = plan_window(x.shape().dim(2), attrs_.ksize[2], attrs_.strides[2],
                         1, attrs_.same);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, {batch, h.out, w.out, c}, &out));
    const T* xp = x.data<T>();
    T* z = out->mutable_data<T>();
    over_images(ctx, batch, x.num_elements(), [&](int64_t b0, int64_t b1) {
      std::vector<T> acc(static_cast<size_t>(c));
      for (int64_t b = b0; b < b1; ++b)
        for (int64_t oy = 0; oy < h.out; ++oy)
          for (int64_t ox = 0; ox < w.out; ++ox) {
            std::fill(acc.begin(), acc.end(),
                      Max ? -std::numeric_limits<T>::infinity() : T(0));
            int64_t count = 0;
            for (int64_t ky = 0; ky < h.k; ++ky) {
              auto iy = oy * h.stride - h.pad + ky;
              for (int64_t kx = 0; kx < w.k; ++kx) {
                auto ix = ox * w.stride - w.pad + kx;
                if (iy < 0 || iy >= h.in || ix < 0 || ix >= w.in)
                  continue;
                ++count;
                const T* in = xp + ((b * h.in + iy) * w.in + ix) * c;
                for (int64_t j = 0; j < c; ++j)
                  acc[static_cast<size_t>(j)]
                    = Max ? std::max(acc[static_cast<size_t>(j)], in[j])
                          : acc[static_cast<size_t>(j)] + in[j];
              }
            }
            T* o = z + ((b * h.out + oy) * w.out + ox) * c;
            for (int64_t j = 0; j < c; ++j)
              o[j] = Max ? acc[static_cast<size_t>(j)]
                         : acc[static_cast<size_t>(j)] / static_cast<T>(count);
          }
    });
  }

private:
  window_attrs attrs_;
};

/// Where `in` (the window's position `k`) is above `top`, channel by
/// channel: raises `top` to it and sets `which` to `k`. Masks, not
/// branches: a branch on random values is mispredicted half the time, and
/// this form vectorises.
template <class T>
void keep_max(const T* __restrict in, T* __restrict top,
              int32_t* __restrict which, int32_t k, int64_t c) {
  for (int64_t j = 0; j < c; ++j) {
    auto mask = -static_cast<int32_t>(in[j] > top[j]);
    top[j] = in[j] > top[j] ? in[j] : top[j];
    which[j] = (k & mask) | (which[j] & ~mask);
  }
}

/// MaxPoolGrad (`Max`: each window's gradient goes to the first position
/// holding its maximum, as TensorFlow's CPU kernel) and AvgPoolGrad (shared
/// equally by the window's in-image positions).
template <class T, bool Max>
class pool_grad_kernel : public basic_kernel {
public:
  explicit pool_grad_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, true);
  }

  void compute(kernel_context& ctx) override {
    // MaxPoolGrad(orig_input, orig_output, grad); AvgPoolGrad(
    // orig_input_shape, grad).
    const auto& grad = ctx.input(Max ? 2 : 1);
    core::shape xs
      = Max ? ctx.input(0).shape() : core::shape{read_ints(ctx.input(0))};
    ACTORFLOW_OP_REQUIRES(
      ctx, xs.rank() == 4 && grad.shape().rank() == 4,
      core::invalid_argument_error("pooling gradients need rank-4 shapes"));
    auto batch = xs.dim(0), c = xs.dim(3);
    auto h = plan_window(xs.dim(1), attrs_.ksize[1], attrs_.strides[1], 1,
                         attrs_.same);
    auto w = plan_window(xs.dim(2), attrs_.ksize[2], attrs_.strides[2], 1,
                         attrs_.same);
    ACTORFLOW_OP_REQUIRES(
      ctx, grad.shape() == core::shape({batch, h.out, w.out, c}),
      core::invalid_argument_error(
        "grad has shape ", grad.shape().to_string(), ", the pooling gives ",
        core::shape({batch, h.out, w.out, c}).to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, xs, &out));
    T* z = out->mutable_data<T>();
    const T* g = grad.data<T>();
    const T* xp = Max ? ctx.input(0).data<T>() : nullptr;
    auto at = [&](int64_t b, int64_t iy, int64_t ix) {
      return ((b * h.in + iy) * w.in + ix) * c;
    };
    over_images(ctx, batch, xs.num_elements(), [&](int64_t b0, int64_t b1) {
      std::fill(z + at(b0, 0, 0), z + at(b1, 0, 0), T(0));
      // Per channel, the window's maximum so far and which of the window's
      // positions (`offset`) holds it.
      std::vector<T> top(static_cast<size_t>(Max ? c : 0));
      std::vector<int32_t> which(top.size());
      std::vector<int64_t> offset(static_cast<size_t>(h.k * w.k));
      for (int64_t b = b0; b < b1; ++b)
        for (int64_t oy = 0; oy < h.out; ++oy)
          for (int64_t ox = 0; ox < w.out; ++ox) {
            const T* go = g + ((b * h.out + oy) * w.out + ox) * c;
            auto y0 = oy * h.stride - h.pad, x0 = ox * w.stride - w.pad;
            auto y1 = std::min(y0 + h.k, h.in), x1 = std::min(x0 + w.k, w.in);
            y0 = std::max<int64_t>(y0, 0);
            x0 = std::max<int64_t>(x0, 0);
            if (y0 >= y1 || x0 >= x1)
              continue;
            if constexpr (Max) {
              // The first position of the maximum in row-major order wins.
              int32_t n = 0;
              for (auto iy = y0; iy < y1; ++iy)
                for (auto ix = x0; ix < x1; ++ix)
                  offset[static_cast<size_t>(n++)] = at(b, iy, ix);
              std::copy_n(xp + offset[0], c, top.begin());
              std::fill(which.begin(), which.end(), 0);
              for (int32_t k = 1; k < n; ++k)
                keep_max(xp + offset[static_cast<size_t>(k)], top.data(),
                         which.data(), k, c);
              for (int64_t j = 0; j < c; ++j)
                z[offset[static_cast<size_t>(which[static_cast<size_t>(j)])]
                  + j]
                  += go[j];
            } else {
              auto n = static_cast<T>((y1 - y0) * (x1 - x0));
              for (auto iy = y0; iy < y1; ++iy)
                for (auto ix = x0; ix < x1; ++ix) {
                  T* dst = z + at(b, iy, ix);
                  for (int64_t j = 0; j < c; ++j)
                    dst[j] += go[j] / n;
                }
            }
          }
    });
  }

private:
  window_attrs attrs_;
};

template <bool Max>
struct pool_grad {
  template <class T>
  using kernel = pool_grad_kernel<T, Max>;
};

template <bool Max>
struct pool {
  template <class T>
  using kernel = pool_kernel<T, Max>;
};

} // namespace

void register_conv_kernels(kernel_registry& r) {
  r.add_typed<conv2d_kernel, float, double>("Conv2D", device_type);
  r.add_typed<conv2d_kernel, float, double>("_FusedConv2D", device_type);
  r.add_typed<conv_backprop<true>::kernel, float, double>("Conv2DBackpropInput",
                                                          device_type);
  r.add_typed<conv_backprop<false>::kernel, float, double>(
    "Conv2DBackpropFilter", device_type);
  r.add_typed<pool<true>::kernel, float, double>("MaxPool", device_type);
  r.add_typed<pool<false>::kernel, float, double>("AvgPool", device_type);
  r.add_typed<pool_grad<true>::kernel, float, double>("MaxPoolGrad",
                                                      device_type);
  r.add_typed<pool_grad<false>::kernel, float, double>("AvgPoolGrad",
                                                       device_type);
}

} // namespace actorflow::ops::cpu
