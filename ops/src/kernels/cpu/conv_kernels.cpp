// Convolution over NHWC tensors, grouped too: Conv2D and its gradients
// with respect to its input and filter (float32 through oneDNN; float64
// by im2col and OpenBLAS GEMMs).

#include "blas.hpp"
#include "kernels.hpp"
#include "onednn_conv.hpp"
#include "parallel_split.hpp"
#include "window.hpp"

#include <algorithm>
#include <limits>
#include <mutex>

namespace actorflow::ops::cpu {

namespace {

/// Calls `f(iy, ix, col)` for every element of every receptive field of
/// one image, `col` pointing at its `channels` values in the fields' rows
/// and `iy`, `ix` outside the image where the window leaves it.
template <class Ptr, class F>
void walk_fields(const window& h, const window& w, int64_t channels, Ptr cols,
                 F&& f) {
  auto col = cols;
  for (int64_t oy = 0; oy < h.out; ++oy)
    for (int64_t ox = 0; ox < w.out; ++ox)
      for (int64_t ky = 0; ky < h.k; ++ky) {
        auto iy = oy * h.stride - h.pad + ky * h.dilation;
        for (int64_t kx = 0; kx < w.k; ++kx, col += channels)
          f(iy, ox * w.stride - w.pad + kx * w.dilation, col);
      }
}

/// Whether (iy, ix) lies in the image of windows `h` and `w`.
bool inside(const window& h, const window& w, int64_t iy, int64_t ix) {
  return iy >= 0 && iy < h.in && ix >= 0 && ix < w.in;
}

/// Lays out the receptive fields of one image of `channels` channels as
/// rows of `cols` (im2col): `group` channels from `image` on, zeros where
/// a window leaves the image.
template <class T>
void gather_fields(const window& h, const window& w, int64_t channels,
                   int64_t group, const T* image, T* cols) {
  walk_fields(h, w, group, cols, [&](int64_t iy, int64_t ix, T* col) {
    if (inside(h, w, iy, ix))
      std::copy_n(image + (iy * w.in + ix) * channels, group, col);
    else
      std::fill_n(col, group, T(0));
  });
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
    constant_filter_ = ctx.attr_or("_constant_filter", false);
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
    int64_t groups = 1;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, common::conv_groups(cin, f.shape().dim(2), cout, &groups));
    auto h = plan_window(x.shape().dim(1), kh, attrs_.strides[1],
                         attrs_.dilations[1], attrs_.same);
    auto w = plan_window(x.shape().dim(2), kw, attrs_.strides[2],
                         attrs_.dilations[2], attrs_.same);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, {batch, h.out, w.out, cout}, &out));
    auto positions = h.out * w.out;
    auto cin_g = cin / groups, cout_g = cout / groups;
    auto depth = kh * kw * cin_g;
    if (out->num_elements() == 0)
      return;
    if (depth == 0) {
      std::fill_n(out->mutable_data<T>(), out->num_elements(), T(0));
      finish(bias, out);
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      auto s = conv_shape_of(batch, cin, cout, groups, h, w);
      if (onednn_conv::supports(s)) {
        conv_epilogue post;
        post.bias = bias;
        if (fused_relu_)
          post.act = conv_epilogue::activation::relu;
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, dnn_.forward(ctx, s, x.data<float>(), f.data<float>(), post,
                            out->mutable_data<float>(), constant_filter_));
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
    T* y = out->mutable_data<T>();
    for (int64_t b0 = 0; b0 < batch; b0 += chunk) {
      auto nb = std::min(chunk, batch - b0);
      // Per group, its channels' fields times its filter columns into its
      // output columns. The copy is serial: OpenBLAS's threads spin between
      // calls, so spreading it over the device's threads measured slower
      // (docs/performance.md).
      for (int64_t g = 0; g < groups; ++g) {
        for (int64_t b = b0; b < b0 + nb; ++b) {
          const T* image = xp + b * h.in * w.in * cin + g * cin_g;
          gather_fields(h, w, cin, cin_g, image,
                        cols.data() + (b - b0) * positions * depth);
        }
        gemm<T>(&ctx, false, false, nb * positions, cout_g, depth, cols.data(),
                depth, f.data<T>() + g * cout_g, cout, T(0),
                y + b0 * positions * cout + g * cout_g, cout);
      }
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
  /// The filter is a Const (the fusion pass's `_constant_filter`).
  bool constant_filter_ = false;
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
    int64_t groups = 1;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, common::conv_groups(cin, fs.dim(2), cout, &groups));
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
      auto s = conv_shape_of(batch, cin, cout, groups, h, w);
      if (onednn_conv::supports(s)) {
        ACTORFLOW_OP_REQUIRES_OK(ctx, dnn_.backward(ctx, s, Input, z));
        return;
      }
    }
    std::fill_n(z, out->num_elements(), T(0));
    auto positions = h.out * w.out;
    auto cin_g = cin / groups, cout_g = cout / groups;
    auto depth = kh * kw * cin_g;
    if (positions == 0 || depth == 0 || cout == 0)
      return;
    std::vector<T> cols(static_cast<size_t>(positions * depth));
    const T* dyp = dy.data<T>();
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t g = 0; g < groups; ++g) {
        // The group's slice of dy [positions, cout_g] and of the filter
        // [depth, cout_g], both with rows of cout.
        const T* dyg = dyp + b * positions * cout + g * cout_g;
        auto offset = b * xs.dim(1) * xs.dim(2) * cin + g * cin_g;
        if constexpr (Input) {
          // fields' gradient = dy * filter^T, scattered back (col2im).
          gemm<T>(&ctx, false, true, positions, depth, cout_g, dyg, cout,
                  ctx.input(1).data<T>() + g * cout_g, cout, T(0), cols.data(),
                  depth);
          T* image = z + offset;
          walk_fields(h, w, cin_g, cols.data(),
                      [&](int64_t iy, int64_t ix, const T* col) {
                        if (!inside(h, w, iy, ix))
                          return;
                        T* dst = image + (iy * w.in + ix) * cin;
                        for (int64_t c = 0; c < cin_g; ++c)
                          dst[c] += col[c];
                      });
        } else {
          // filter's gradient += fields^T [depth, positions] * dy.
          const T* image = ctx.input(0).data<T>() + offset;
          gather_fields(h, w, cin, cin_g, image, cols.data());
          gemm<T>(&ctx, true, false, depth, cout_g, positions, cols.data(),
                  depth, dyg, cout, T(1), z + g * cout_g, cout);
        }
      }
  }

private:
  window_attrs attrs_;
  onednn_conv dnn_;
};

template <bool Input>
struct conv_backprop {
  template <class T>
  using kernel = conv2d_backprop_kernel<T, Input>;
};

} // namespace

void register_conv_kernels(kernel_registry& r) {
  r.add_typed<conv2d_kernel, float, double>("Conv2D", device_type);
  r.add_typed<conv2d_kernel, float, double>("_FusedConv2D", device_type);
  r.add_typed<conv_backprop<true>::kernel, float, double>("Conv2DBackpropInput",
                                                          device_type);
  r.add_typed<conv_backprop<false>::kernel, float, double>(
    "Conv2DBackpropFilter", device_type);
}

} // namespace actorflow::ops::cpu
