// Pooling over NHWC tensors: MaxPool and AvgPool and their gradients.

#include "kernels.hpp"
#include "window.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace actorflow::ops::cpu {

namespace {

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

/// Writes the window's position `k`, channel by channel: the gradient `g`
/// where `which` says the maximum is, zero elsewhere (a select that
/// vectorises).
template <class T>
void place_grad(const T* __restrict g, const int32_t* __restrict which,
                int32_t k, T* __restrict dst, int64_t c) {
  for (int64_t j = 0; j < c; ++j) {
    auto v = g[j];
    dst[j] = which[j] == k ? v : T(0);
  }
}

/// Whether windows `h` tile their dimension exactly: side by side, no
/// padding, nothing left over (2x2 windows of stride 2 on an even size).
bool tiles(const window& h) {
  return h.stride == h.k && h.pad == 0 && h.out * h.k == h.in;
}

/// MaxPoolGrad of images [b0, b1) whose windows tile them exactly (`tiles`
/// both ways): every input position lies in one window, so each is
/// written once -- the window's gradient where its first maximum is, zero
/// elsewhere -- with no zeroing pass before and no scattered adds.
template <class T>
void tiled_max_grad(const T* x, const T* g, T* z, int64_t b0, int64_t b1,
                    const window& h, const window& w, int64_t c) {
  std::vector<T> top(static_cast<size_t>(c));
  std::vector<int32_t> which(top.size());
  std::vector<int64_t> offset(static_cast<size_t>(h.k * w.k));
  auto n = static_cast<int32_t>(offset.size());
  for (int64_t b = b0; b < b1; ++b)
    for (int64_t oy = 0; oy < h.out; ++oy)
      for (int64_t ox = 0; ox < w.out; ++ox) {
        size_t i = 0;
        for (int64_t ky = 0; ky < h.k; ++ky)
          for (int64_t kx = 0; kx < w.k; ++kx)
            offset[i++]
              = ((b * h.in + oy * h.k + ky) * w.in + ox * w.k + kx) * c;
        std::copy_n(x + offset[0], c, top.begin());
        std::fill(which.begin(), which.end(), 0);
        for (int32_t k = 1; k < n; ++k)
          keep_max(x + offset[static_cast<size_t>(k)], top.data(), which.data(),
                   k, c);
        const T* go = g + ((b * h.out + oy) * w.out + ox) * c;
        for (int32_t k = 0; k < n; ++k)
          place_grad(go, which.data(), k, z + offset[static_cast<size_t>(k)],
                     c);
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
    if (Max && tiles(h) && tiles(w)) {
      over_images(ctx, batch, xs.num_elements(), [&](int64_t b0, int64_t b1) {
        tiled_max_grad(xp, g, z, b0, b1, h, w, c);
      });
      return;
    }
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

void register_pool_kernels(kernel_registry& r) {
  r.add_typed<pool<true>::kernel, float, double>("MaxPool", device_type);
  r.add_typed<pool<false>::kernel, float, double>("AvgPool", device_type);
  r.add_typed<pool_grad<true>::kernel, float, double>("MaxPoolGrad",
                                                      device_type);
  r.add_typed<pool_grad<false>::kernel, float, double>("AvgPoolGrad",
                                                       device_type);
}

} // namespace actorflow::ops::cpu
