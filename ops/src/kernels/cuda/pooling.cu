// MaxPool and AvgPool over NHWC images and their gradients. TensorFlow's
// SAME windows may pad one element more after than before, which cuDNN's
// pooling cannot express; these kernels follow the CPU's exactly.

#include <limits>

#include "grid.cuh"
#include "launch.hpp"

namespace actorflow::ops::gpu {

namespace {

/// The part of window (oy, ox) inside the image: rows [y0, y1), columns
/// [x0, x1).
struct clipped {
  int64_t y0, y1, x0, x1;
};

__device__ clipped clip(const pool_geometry& g, int64_t oy, int64_t ox) {
  auto y0 = oy * g.stride_h - g.pad_top;
  auto x0 = ox * g.stride_w - g.pad_left;
  auto y1 = y0 + g.k_h < g.in_h ? y0 + g.k_h : g.in_h;
  auto x1 = x0 + g.k_w < g.in_w ? x0 + g.k_w : g.in_w;
  return {y0 > 0 ? y0 : 0, y1, x0 > 0 ? x0 : 0, x1};
}

/// Offset of (b, y, x, channel 0) in the input image.
__device__ int64_t at(const pool_geometry& g, int64_t b, int64_t y, int64_t x) {
  return ((b * g.in_h + y) * g.in_w + x) * g.channels;
}

/// The outputs whose windows cover input row (or column) `i`: [lo, hi].
__device__ void covering(int64_t i, int64_t k, int64_t stride, int64_t pad,
                         int64_t out, int64_t* lo, int64_t* hi) {
  auto first = i + pad - k + 1;
  *lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  auto last = (i + pad) / stride;
  *hi = last < out - 1 ? last : out - 1;
}

/// The offset (channel 0) of the first maximum of window (b, oy, ox) in
/// channel `c`, or -1 for a window wholly outside the image.
template <class T>
__device__ int64_t first_max(const T* x, const pool_geometry& g, int64_t b,
                             int64_t oy, int64_t ox, int64_t c) {
  auto w = clip(g, oy, ox);
  int64_t best = -1;
  T top = 0;
  for (auto iy = w.y0; iy < w.y1; ++iy)
    for (auto ix = w.x0; ix < w.x1; ++ix) {
      auto off = at(g, b, iy, ix);
      if (best < 0 || x[off + c] > top) {
        best = off;
        top = x[off + c];
      }
    }
  return best;
}

/// One thread per output element; channels innermost, so neighbouring
/// threads read neighbouring channels.
template <class T, bool Max>
__global__ void pool_kernel(const T* x, T* y, pool_geometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    auto c = i % g.channels;
    auto rest = i / g.channels;
    auto ox = rest % g.out_w;
    rest /= g.out_w;
    auto oy = rest % g.out_h;
    auto b = rest / g.out_h;
    auto w = clip(g, oy, ox);
    T acc = Max ? -std::numeric_limits<T>::infinity() : T(0);
    for (auto iy = w.y0; iy < w.y1; ++iy)
      for (auto ix = w.x0; ix < w.x1; ++ix) {
        T v = x[at(g, b, iy, ix) + c];
        acc = Max ? (v > acc ? v : acc) : acc + v;
      }
    if (!Max)
      acc /= static_cast<T>((w.y1 - w.y0) * (w.x1 - w.x0));
    y[i] = acc;
  }
}

/// One thread per input element: the sum over the windows covering it of
/// their gradient, where it holds the window's first maximum (`Max`) or
/// divided by the window's size.
template <class T, bool Max>
__global__ void pool_grad_kernel(const T* x, const T* dy, T* dx,
                                 pool_geometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    auto c = i % g.channels;
    auto rest = i / g.channels;
    auto ix = rest % g.in_w;
    rest /= g.in_w;
    auto iy = rest % g.in_h;
    auto b = rest / g.in_h;
    int64_t oy0, oy1, ox0, ox1;
    covering(iy, g.k_h, g.stride_h, g.pad_top, g.out_h, &oy0, &oy1);
    covering(ix, g.k_w, g.stride_w, g.pad_left, g.out_w, &ox0, &ox1);
    auto self = at(g, b, iy, ix);
    T acc = 0;
    for (auto oy = oy0; oy <= oy1; ++oy)
      for (auto ox = ox0; ox <= ox1; ++ox) {
        auto grad = dy[((b * g.out_h + oy) * g.out_w + ox) * g.channels + c];
        if (Max) {
          if (first_max(x, g, b, oy, ox, c) == self)
            acc += grad;
        } else {
          auto w = clip(g, oy, ox);
          acc += grad / static_cast<T>((w.y1 - w.y0) * (w.x1 - w.x0));
        }
      }
    dx[i] = acc;
  }
}

template <class T>
cudaError_t pool_typed(bool max, const void* x, void* y, const pool_geometry& g,
                       cudaStream_t stream) {
  auto n = g.batch * g.out_h * g.out_w * g.channels;
  if (n == 0)
    return cudaSuccess;
  auto* in = static_cast<const T*>(x);
  auto* out = static_cast<T*>(y);
  if (max)
    pool_kernel<T, true><<<blocks_for(n), threads, 0, stream>>>(in, out, g, n);
  else
    pool_kernel<T, false><<<blocks_for(n), threads, 0, stream>>>(in, out, g, n);
  return cudaGetLastError();
}

template <class T, bool Max>
cudaError_t pool_grad_typed(const void* x, const void* dy, void* dx,
                            const pool_geometry& g, cudaStream_t stream) {
  auto n = g.batch * g.in_h * g.in_w * g.channels;
  if (n == 0)
    return cudaSuccess;
  pool_grad_kernel<T, Max><<<blocks_for(n), threads, 0, stream>>>(
    static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx), g,
    n);
  return cudaGetLastError();
}

} // namespace

cudaError_t pool(elem type, bool max, const void* x, void* y,
                 const pool_geometry& g, cudaStream_t stream) {
  if (type == elem::f32)
    return pool_typed<float>(max, x, y, g, stream);
  if (type == elem::f64)
    return pool_typed<double>(max, x, y, g, stream);
  return cudaErrorInvalidValue;
}

cudaError_t max_pool_grad(elem type, const void* x, const void* dy, void* dx,
                          const pool_geometry& g, cudaStream_t stream) {
  if (type == elem::f32)
    return pool_grad_typed<float, true>(x, dy, dx, g, stream);
  if (type == elem::f64)
    return pool_grad_typed<double, true>(x, dy, dx, g, stream);
  return cudaErrorInvalidValue;
}

cudaError_t avg_pool_grad(elem type, const void* dy, void* dx,
                          const pool_geometry& g, cudaStream_t stream) {
  if (type == elem::f32)
    return pool_grad_typed<float, false>(nullptr, dy, dx, g, stream);
  if (type == elem::f64)
    return pool_grad_typed<double, false>(nullptr, dy, dx, g, stream);
  return cudaErrorInvalidValue;
}

} // namespace actorflow::ops::gpu
