// Convolution and pooling over NDHWC volumes (Conv3D, MaxPool3D,
// AvgPool3D) and their gradients, by direct loops with the channels
// innermost, split by images.

#include "kernels.hpp"
#include "window.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace actorflow::ops::cpu {

namespace {

/// The attrs of a 3-D windowed op, and its three windows for one input.
struct volume_attrs {
  std::vector<int64_t> strides, ksize{1, 1, 1, 1, 1}, dilations{1, 1, 1, 1, 1};
  bool same = false;

  core::status read(const kernel_construction& ctx, bool pooling) {
    ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("strides", &strides));
    if (pooling)
      ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("ksize", &ksize));
    else
      dilations = ctx.attr_or("dilations", dilations);
    auto padding = ctx.attr_or("padding", std::string{});
    if (padding != "SAME" && padding != "VALID")
      return core::invalid_argument_error("padding must be SAME or VALID");
    if (ctx.attr_or("data_format", std::string{"NDHWC"}) != "NDHWC")
      return core::unimplemented_error("only data_format NDHWC is supported");
    for (const auto* v : {&strides, &ksize, &dilations})
      if (v->size() != 5 || (*v)[0] != 1 || (*v)[4] != 1)
        return core::invalid_argument_error(
          "strides, ksize and dilations must be [1, d, h, w, 1]");
    same = padding == "SAME";
    return core::status::ok();
  }
};

/// One volume op's geometry: input [batch, d, h, w, c], three windows,
/// output [batch, od, oh, ow, out_c].
struct volume_shape {
  int64_t batch = 0, c = 0, out_c = 0;
  std::array<window, 3> w;

  /// Plans it for an input of shape `in` and window sizes `k`.
  static core::status plan(const volume_attrs& a, const core::shape& in,
                           const std::array<int64_t, 3>& k, int64_t out_c,
                           volume_shape* out) {
    if (in.rank() != 5)
      return core::invalid_argument_error("a volume op needs NDHWC, got ",
                                          in.to_string());
    volume_shape s;
    s.batch = in.dim(0);
    s.c = in.dim(4);
    s.out_c = out_c;
    for (size_t d = 0; d < 3; ++d)
      s.w[d] = plan_window(in.dim(static_cast<int>(d) + 1), k[d],
                           a.strides[d + 1], a.dilations[d + 1], a.same);
    *out = s;
    return core::status::ok();
  }

  int64_t in_volume() const noexcept {
    return w[0].in * w[1].in * w[2].in;
  }

  int64_t out_volume() const noexcept {
    return w[0].out * w[1].out * w[2].out;
  }

  core::shape out_shape() const {
    return {batch, w[0].out, w[1].out, w[2].out, out_c};
  }

  /// Calls `f(o, tap, i)` for every output position o, window tap and the
  /// input position i it reads, where that is inside the volume
  /// (positions and taps flat, row-major).
  template <class F>
  void for_each_tap(F&& f) const {
    int64_t o = 0;
    for (int64_t z = 0; z < w[0].out; ++z)
      for (int64_t y = 0; y < w[1].out; ++y)
        for (int64_t x = 0; x < w[2].out; ++x, ++o) {
          int64_t tap = 0;
          for (int64_t kz = 0; kz < w[0].k; ++kz) {
            auto iz = z * w[0].stride - w[0].pad + kz * w[0].dilation;
            for (int64_t ky = 0; ky < w[1].k; ++ky) {
              auto iy = y * w[1].stride - w[1].pad + ky * w[1].dilation;
              for (int64_t kx = 0; kx < w[2].k; ++kx, ++tap) {
                auto ix = x * w[2].stride - w[2].pad + kx * w[2].dilation;
                if (iz >= 0 && iz < w[0].in && iy >= 0 && iy < w[1].in
                    && ix >= 0 && ix < w[2].in)
                  f(o, tap, (iz * w[1].in + iy) * w[2].in + ix);
              }
            }
          }
        }
  }
};

/// The window sizes of a [kd, kh, kw, ...] filter.
std::array<int64_t, 3> filter_window(const core::shape& f) {
  return {f.dim(0), f.dim(1), f.dim(2)};
}

/// Conv3D (`Mode` 0), Conv3DBackpropInputV2 (1), Conv3DBackpropFilterV2 (2):
/// y[o, j] = sum over taps and channels of x[i, c] * f[tap, c, j].
template <class T, int Mode>
class conv3d_kernel : public basic_kernel {
public:
  explicit conv3d_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, false);
  }

  void compute(kernel_context& ctx) override {
    core::shape xs, fs;
    if (Mode == 0) {
      xs = ctx.input(0).shape();
      fs = ctx.input(1).shape();
    } else {
      auto sizes = read_ints(ctx.input(Mode == 1 ? 0 : 1));
      ACTORFLOW_OP_REQUIRES(
        ctx, sizes.size() == 5,
        core::invalid_argument_error("the sizes must have 5 elements"));
      xs = Mode == 1 ? core::shape{sizes} : ctx.input(0).shape();
      fs = Mode == 1 ? ctx.input(1).shape() : core::shape{sizes};
    }
    ACTORFLOW_OP_REQUIRES(
      ctx, fs.rank() == 5 && xs.rank() == 5 && fs.dim(3) == xs.dim(4),
      core::invalid_argument_error(
        "Conv3D needs an NDHWC input and a DHWIO filter of its channels, "
        "got ",
        xs.to_string(), " and ", fs.to_string()));
    volume_shape s;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, volume_shape::plan(attrs_, xs, filter_window(fs), fs.dim(4), &s));
    if (Mode != 0)
      ACTORFLOW_OP_REQUIRES(ctx, ctx.input(2).shape() == s.out_shape(),
                            core::invalid_argument_error(
                              "out_backprop has shape ",
                              ctx.input(2).shape().to_string(),
                              ", Conv3D gives ", s.out_shape().to_string()));
    core::tensor* out = nullptr;
    const core::shape& out_shape
      = Mode == 0 ? s.out_shape() : (Mode == 1 ? xs : fs);
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    T* z = out->mutable_data<T>();
    std::fill_n(z, out->num_elements(), T(0));
    auto c = s.c, oc = s.out_c;
    auto tap_size = c * oc;
    if (Mode == 2) {
      // The filter's gradient sums over the batch: one thread.
      const T* xp = ctx.input(0).data<T>();
      const T* g = ctx.input(2).data<T>();
      for (int64_t b = 0; b < s.batch; ++b)
        s.for_each_tap([&](int64_t o, int64_t tap, int64_t i) {
          const T* xi = xp + (b * s.in_volume() + i) * c;
          const T* go = g + (b * s.out_volume() + o) * oc;
          T* ft = z + tap * tap_size;
          for (int64_t k = 0; k < c; ++k)
            for (int64_t j = 0; j < oc; ++j)
              ft[k * oc + j] += xi[k] * go[j];
        });
      return;
    }
    const T* fp = ctx.input(1).data<T>();
    const T* src = ctx.input(Mode == 0 ? 0 : 2).data<T>();
    over_images(ctx, s.batch, out->num_elements() * fs.num_elements() / oc,
                [&](int64_t b0, int64_t b1) {
                  for (int64_t b = b0; b < b1; ++b)
                    s.for_each_tap([&](int64_t o, int64_t tap, int64_t i) {
                      const T* ft = fp + tap * tap_size;
                      if (Mode == 0) {
                        const T* xi = src + (b * s.in_volume() + i) * c;
                        T* yo = z + (b * s.out_volume() + o) * oc;
                        for (int64_t k = 0; k < c; ++k)
                          for (int64_t j = 0; j < oc; ++j)
                            yo[j] += xi[k] * ft[k * oc + j];
                      } else {
                        const T* go = src + (b * s.out_volume() + o) * oc;
                        T* xi = z + (b * s.in_volume() + i) * c;
                        for (int64_t k = 0; k < c; ++k)
                          for (int64_t j = 0; j < oc; ++j)
                            xi[k] += go[j] * ft[k * oc + j];
                      }
                    });
                });
  }

private:
  volume_attrs attrs_;
};

/// MaxPool3D (`Max`) and AvgPool3D (the mean of the window's in-volume
/// elements), and with `Grad` their gradients: MaxPool3DGrad(orig_input,
/// orig_output, grad) to each window's first maximum, AvgPool3DGrad(
/// orig_input_shape, grad) shared by the window's in-volume elements.
template <class T, bool Max, bool Grad>
class pool3d_kernel : public basic_kernel {
public:
  explicit pool3d_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, true);
  }

  void compute(kernel_context& ctx) override {
    core::shape xs = ctx.input(0).shape();
    if (Grad && !Max) {
      auto sizes = read_ints(ctx.input(0));
      ACTORFLOW_OP_REQUIRES(
        ctx, sizes.size() == 5,
        core::invalid_argument_error("orig_input_shape must have 5 elements"));
      xs = core::shape{sizes};
    }
    volume_shape s;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, volume_shape::plan(
             attrs_, xs, {attrs_.ksize[1], attrs_.ksize[2], attrs_.ksize[3]},
             xs.rank() == 5 ? xs.dim(4) : 0, &s));
    const auto& g = ctx.input(Grad ? (Max ? 2 : 1) : 0);
    if (Grad)
      ACTORFLOW_OP_REQUIRES(
        ctx, g.shape() == s.out_shape(),
        core::invalid_argument_error("grad has shape ", g.shape().to_string(),
                                     ", the pooling gives ",
                                     s.out_shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, Grad ? xs : s.out_shape(), &out));
    T* z = out->mutable_data<T>();
    auto c = s.c;
    const T* xp = Max || !Grad ? ctx.input(0).data<T>() : nullptr;
    const T* gp = g.data<T>();
    std::fill_n(z, out->num_elements(), T(0));
    over_images(ctx, s.batch, out->num_elements(), [&](int64_t b0, int64_t b1) {
      std::vector<T> best(static_cast<size_t>(c));
      std::vector<int64_t> where(best.size()), count(best.size());
      for (int64_t b = b0; b < b1; ++b) {
        auto image = b * s.in_volume(), grid = b * s.out_volume();
        int64_t current = -1;
        // Flushes output position `o` once its window is walked.
        auto flush = [&](int64_t o) {
          for (int64_t k = 0; k < c; ++k) {
            auto ku = static_cast<size_t>(k);
            if (!Grad) {
              z[(grid + o) * c + k]
                = Max ? best[ku]
                      : (count[ku] > 0 ? best[ku] / static_cast<T>(count[ku])
                                       : T(0));
            } else if (Max && where[ku] >= 0) {
              z[(image + where[ku]) * c + k] += gp[(grid + o) * c + k];
            }
          }
        };
        auto start = [&] {
          std::fill(best.begin(), best.end(),
                    Max ? std::numeric_limits<T>::lowest() : T(0));
          std::fill(where.begin(), where.end(), -1);
          std::fill(count.begin(), count.end(), 0);
        };
        if (Grad && !Max) {
          // Each output's gradient shared by its window's elements.
          std::vector<int64_t> sizes(static_cast<size_t>(s.out_volume()), 0);
          s.for_each_tap([&](int64_t o, int64_t, int64_t) {
            ++sizes[static_cast<size_t>(o)];
          });
          s.for_each_tap([&](int64_t o, int64_t, int64_t i) {
            auto n = static_cast<T>(sizes[static_cast<size_t>(o)]);
            for (int64_t k = 0; k < c; ++k)
              z[(image + i) * c + k] += gp[(grid + o) * c + k] / n;
          });
          continue;
        }
        s.for_each_tap([&](int64_t o, int64_t, int64_t i) {
          if (o != current) {
            if (current >= 0)
              flush(current);
            start();
            current = o;
          }
          for (int64_t k = 0; k < c; ++k) {
            auto ku = static_cast<size_t>(k);
            auto v = xp[(image + i) * c + k];
            if (!Max) {
              best[ku] += v;
              ++count[ku];
            } else if (where[ku] < 0 || v > best[ku]) {
              best[ku] = v;
              where[ku] = i;
            }
          }
        });
        if (current >= 0)
          flush(current);
      }
    });
  }

private:
  volume_attrs attrs_;
};

template <int Mode>
struct conv3d {
  template <class T>
  using kernel = conv3d_kernel<T, Mode>;
};

template <bool Max, bool Grad>
struct pool3d {
  template <class T>
  using kernel = pool3d_kernel<T, Max, Grad>;
};

} // namespace

void register_volume_kernels(kernel_registry& r) {
  r.add_typed<conv3d<0>::kernel, float, double>("Conv3D", device_type);
  r.add_typed<conv3d<1>::kernel, float, double>("Conv3DBackpropInputV2",
                                                device_type);
  r.add_typed<conv3d<2>::kernel, float, double>("Conv3DBackpropFilterV2",
                                                device_type);
  r.add_typed<pool3d<true, false>::kernel, float, double>("MaxPool3D",
                                                          device_type);
  r.add_typed<pool3d<false, false>::kernel, float, double>("AvgPool3D",
                                                           device_type);
  r.add_typed<pool3d<true, true>::kernel, float, double>("MaxPool3DGrad",
                                                         device_type);
  r.add_typed<pool3d<false, true>::kernel, float, double>("AvgPool3DGrad",
                                                          device_type);
}

} // namespace actorflow::ops::cpu
