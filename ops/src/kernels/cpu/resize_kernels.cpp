// Resizing NHWC images as TensorFlow does (ResizeBilinear,
// ResizeNearestNeighbor: tf.image.resize, Keras' UpSampling2D and
// Resizing) and the gradients of both.

#include "kernels.hpp"
#include "window.hpp"

#include <algorithm>
#include <cmath>

namespace actorflow::ops::cpu {

namespace {

/// How output positions map onto input positions along one axis
/// (TensorFlow's image_resizer_state): the scale, and the corner and
/// pixel-centre rules of the node.
struct axis_map {
  int64_t in = 0, out = 0;
  float scale = 0;
  bool align_corners = false, half_pixel = false;

  axis_map(int64_t in_size, int64_t out_size, bool corners, bool half)
    : in(in_size), out(out_size), align_corners(corners), half_pixel(half) {
    scale = corners && out > 1
              ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
              : static_cast<float>(in) / static_cast<float>(out);
  }

  /// The input coordinate of output position `i` for interpolation.
  float source(int64_t i) const {
    auto at = static_cast<float>(i);
    return half_pixel ? (at + 0.5f) * scale - 0.5f : at * scale;
  }

  /// The nearest input index of output position `i`.
  int64_t nearest(int64_t i) const {
    auto at = static_cast<float>(i);
    at = half_pixel ? (at + 0.5f) * scale : at * scale;
    auto k
      = static_cast<int64_t>(align_corners ? std::round(at) : std::floor(at));
    return std::clamp<int64_t>(k, 0, in - 1);
  }

  /// The two input indices around output position `i` and the weight of
  /// the upper one.
  void lerp(int64_t i, int64_t* lower, int64_t* upper, float* weight) const {
    float at = source(i);
    float floor = std::floor(at);
    *lower = std::max<int64_t>(static_cast<int64_t>(floor), 0);
    *upper = std::min<int64_t>(static_cast<int64_t>(std::ceil(at)), in - 1);
    *weight = at - floor;
  }
};

/// The attrs every resize reads.
struct resize_attrs {
  bool align_corners = false, half_pixel = false;

  explicit resize_attrs(const kernel_construction& ctx)
    : align_corners(ctx.attr_or("align_corners", false)),
      half_pixel(ctx.attr_or("half_pixel_centers", false)) {
  }

  /// Checks an NHWC `image` and a [height, width] `size` tensor and maps
  /// its axes: from the image to the size (`forward`) or back.
  core::status plan(const core::shape& image, const core::tensor& size,
                    bool forward, axis_map* h, axis_map* w) const {
    auto hw = read_ints(size);
    if (image.rank() != 4 || hw.size() != 2 || hw[0] <= 0 || hw[1] <= 0)
      return core::invalid_argument_error(
        "resizing needs NHWC images and a positive size [height, width], "
        "got ",
        image.to_string(), " and ", size.debug_string(2));
    if (align_corners && half_pixel)
      return core::invalid_argument_error(
        "align_corners and half_pixel_centers cannot both be true");
    auto in_h = forward ? image.dim(1) : hw[0];
    auto in_w = forward ? image.dim(2) : hw[1];
    auto out_h = forward ? hw[0] : image.dim(1);
    auto out_w = forward ? hw[1] : image.dim(2);
    if (in_h <= 0 || in_w <= 0)
      return core::invalid_argument_error("cannot resize an empty image ",
                                          image.to_string());
    *h = axis_map{in_h, out_h, align_corners, half_pixel};
    *w = axis_map{in_w, out_w, align_corners, half_pixel};
    return core::status::ok();
  }
};

/// What every resize kernel reads from its node.
class resize_base : public basic_kernel {
public:
  explicit resize_base(kernel_construction& ctx) : attrs_(ctx) {
  }

protected:
  /// Maps input 0's axes onto the size input 1 holds and allocates the
  /// [batch, height, width, channels] output.
  core::status resized_output(kernel_context& ctx, axis_map* h, axis_map* w,
                              core::tensor** out) const {
    const auto& x = ctx.input(0).shape();
    ACTORFLOW_RETURN_IF_ERROR(attrs_.plan(x, ctx.input(1), true, h, w));
    return ctx.allocate_output(0, {x.dim(0), h->out, w->out, x.dim(3)}, out);
  }

  resize_attrs attrs_;
};

/// One output pixel's bilinear taps: the input rows and columns around it
/// and the weights of the later ones.
struct taps {
  int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
  float wy = 0, wx = 0;
};

/// Calls `f(b, oy, ox, taps)` for every output pixel of images [b0, b1).
template <class F>
void for_each_taps(const axis_map& h, const axis_map& w, int64_t b0, int64_t b1,
                   F&& f) {
  for (int64_t b = b0; b < b1; ++b)
    for (int64_t oy = 0; oy < h.out; ++oy) {
      taps t;
      h.lerp(oy, &t.y0, &t.y1, &t.wy);
      for (int64_t ox = 0; ox < w.out; ++ox) {
        w.lerp(ox, &t.x0, &t.x1, &t.wx);
        f(b, oy, ox, t);
      }
    }
}

/// ResizeBilinear: each output pixel interpolates its four nearest input
/// pixels, in float (TensorFlow's output is float whatever the input).
template <class T>
class resize_bilinear_kernel : public resize_base {
public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    axis_map h{1, 1, false, false}, w{1, 1, false, false};
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, resized_output(ctx, &h, &w, &out));
    auto batch = x.shape().dim(0), c = x.shape().dim(3);
    const T* xp = x.data<T>();
    float* y = out->mutable_data<float>();
    auto pixel = [&](int64_t b, int64_t iy, int64_t ix) {
      return xp + ((b * h.in + iy) * w.in + ix) * c;
    };
    over_images(
      ctx, batch, out->num_elements() * 4, [&](int64_t b0, int64_t b1) {
        for_each_taps(
          h, w, b0, b1, [&](int64_t b, int64_t oy, int64_t ox, const taps& t) {
            const T *tl = pixel(b, t.y0, t.x0), *tr = pixel(b, t.y0, t.x1),
                    *bl = pixel(b, t.y1, t.x0), *br = pixel(b, t.y1, t.x1);
            float* dst = y + ((b * h.out + oy) * w.out + ox) * c;
            for (int64_t k = 0; k < c; ++k) {
              float top = static_cast<float>(tl[k])
                          + (static_cast<float>(tr[k]) - tl[k]) * t.wx;
              float bottom = static_cast<float>(bl[k])
                             + (static_cast<float>(br[k]) - bl[k]) * t.wx;
              dst[k] = top + (bottom - top) * t.wy;
            }
          });
      });
  }
};

/// ResizeNearestNeighbor: each output pixel a copy of its nearest input
/// pixel.
template <class T>
class resize_nearest_kernel : public resize_base {
public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    axis_map h{1, 1, false, false}, w{1, 1, false, false};
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, resized_output(ctx, &h, &w, &out));
    auto batch = x.shape().dim(0), c = x.shape().dim(3);
    const T* xp = x.data<T>();
    T* y = out->mutable_data<T>();
    over_images(ctx, batch, out->num_elements(), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        for (int64_t oy = 0; oy < h.out; ++oy) {
          auto iy = h.nearest(oy);
          for (int64_t ox = 0; ox < w.out; ++ox)
            std::copy_n(xp + ((b * h.in + iy) * w.in + w.nearest(ox)) * c, c,
                        y + ((b * h.out + oy) * w.out + ox) * c);
        }
    });
  }
};

/// ResizeBilinearGrad(grads, original_image): each output gradient spread
/// onto the four input pixels with the forward's weights.
template <class T>
class resize_bilinear_grad_kernel : public resize_base {
public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    const auto& g = ctx.input(0);
    const auto& original = ctx.input(1).shape();
    auto size = core::tensor::from_vector<int64_t>(
      {2}, {g.shape().rank() == 4 ? g.shape().dim(1) : 0,
            g.shape().rank() == 4 ? g.shape().dim(2) : 0});
    axis_map h{1, 1, false, false}, w{1, 1, false, false};
    ACTORFLOW_OP_REQUIRES_OK(ctx, attrs_.plan(original, size, true, &h, &w));
    ACTORFLOW_OP_REQUIRES(
      ctx,
      g.shape().dim(0) == original.dim(0)
        && g.shape().dim(3) == original.dim(3),
      core::invalid_argument_error("grads ", g.shape().to_string(),
                                   " do not fit original_image ",
                                   original.to_string()));
    auto batch = original.dim(0), c = original.dim(3);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, original, &out));
    const float* gp = g.data<float>();
    T* dx = out->mutable_data<T>();
    std::fill_n(dx, out->num_elements(), T(0));
    over_images(ctx, batch, g.num_elements() * 4, [&](int64_t b0, int64_t b1) {
      for_each_taps(
        h, w, b0, b1, [&](int64_t b, int64_t oy, int64_t ox, const taps& t) {
          const float* src = gp + ((b * h.out + oy) * w.out + ox) * c;
          auto add = [&](int64_t iy, int64_t ix, float weight) {
            T* dst = dx + ((b * h.in + iy) * w.in + ix) * c;
            for (int64_t k = 0; k < c; ++k)
              dst[k] += static_cast<T>(src[k] * weight);
          };
          add(t.y0, t.x0, (1 - t.wy) * (1 - t.wx));
          add(t.y0, t.x1, (1 - t.wy) * t.wx);
          add(t.y1, t.x0, t.wy * (1 - t.wx));
          add(t.y1, t.x1, t.wy * t.wx);
        });
    });
  }
};

/// ResizeNearestNeighborGrad(grads, size): each output gradient summed
/// into the input pixel it copied.
template <class T>
class resize_nearest_grad_kernel : public resize_base {
public:
  using resize_base::resize_base;

  void compute(kernel_context& ctx) override {
    const auto& g = ctx.input(0);
    axis_map h{1, 1, false, false}, w{1, 1, false, false};
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, attrs_.plan(g.shape(), ctx.input(1), false, &h, &w));
    auto batch = g.shape().dim(0), c = g.shape().dim(3);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, {batch, h.in, w.in, c}, &out));
    const T* gp = g.data<T>();
    T* dx = out->mutable_data<T>();
    std::fill_n(dx, out->num_elements(), T(0));
    over_images(ctx, batch, g.num_elements(), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        for (int64_t oy = 0; oy < h.out; ++oy) {
          auto iy = h.nearest(oy);
          for (int64_t ox = 0; ox < w.out; ++ox) {
            const T* src = gp + ((b * h.out + oy) * w.out + ox) * c;
            T* dst = dx + ((b * h.in + iy) * w.in + w.nearest(ox)) * c;
            for (int64_t k = 0; k < c; ++k)
              dst[k] += src[k];
          }
        }
    });
  }
};

} // namespace

void register_resize_kernels(kernel_registry& r) {
  r.add_typed<resize_bilinear_kernel, float, double>("ResizeBilinear",
                                                     device_type);
  r.add_typed<resize_nearest_kernel, float, double, int32_t, int64_t>(
    "ResizeNearestNeighbor", device_type);
  r.add_typed<resize_bilinear_grad_kernel, float, double>("ResizeBilinearGrad",
                                                          device_type);
  r.add_typed<resize_nearest_grad_kernel, float, double>(
    "ResizeNearestNeighborGrad", device_type);
}

} // namespace actorflow::ops::cpu
