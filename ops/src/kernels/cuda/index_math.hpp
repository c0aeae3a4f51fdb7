#pragma once

// Internal: the index arithmetic of the layout and pooling kernels, as
// functions that nvcc compiles for the device and any compiler for the
// host, so that tests check it against the CPU's kernels on machines
// without a GPU (tests/gpu/index_math_test.cpp).

#include <cstdint>
#include <limits>

#include "launch.hpp"

#ifdef __CUDACC__
#  define ACTORFLOW_HOST_DEVICE __host__ __device__
#else
#  define ACTORFLOW_HOST_DEVICE
#endif

namespace actorflow::ops::gpu {

/// Where element `i` of `box` (row-major over its dims) is read (`from`)
/// and written (`to`).
ACTORFLOW_HOST_DEVICE inline void box_offsets(const box_index& box, int64_t i,
                                              int64_t* from, int64_t* to) {
  int64_t src = 0;
  int64_t dst = 0;
  for (int d = box.rank - 1; d >= 0; --d) {
    auto index = i % box.dims[d];
    i /= box.dims[d];
    src += index * box.src_strides[d];
    dst += index * box.dst_strides[d];
  }
  *from = src;
  *to = dst;
}

/// The part of pooling window (oy, ox) inside the image: rows [y0, y1),
/// columns [x0, x1).
struct clipped {
  int64_t y0, y1, x0, x1;
};

ACTORFLOW_HOST_DEVICE inline clipped clip(const pool_geometry& g, int64_t oy,
                                          int64_t ox) {
  auto y0 = oy * g.stride_h - g.pad_top;
  auto x0 = ox * g.stride_w - g.pad_left;
  auto y1 = y0 + g.k_h < g.in_h ? y0 + g.k_h : g.in_h;
  auto x1 = x0 + g.k_w < g.in_w ? x0 + g.k_w : g.in_w;
  return {y0 > 0 ? y0 : 0, y1, x0 > 0 ? x0 : 0, x1};
}

/// Offset of (b, y, x, channel 0) in the pooling's input.
ACTORFLOW_HOST_DEVICE inline int64_t image_at(const pool_geometry& g, int64_t b,
                                              int64_t y, int64_t x) {
  return ((b * g.in_h + y) * g.in_w + x) * g.channels;
}

/// The outputs whose windows cover input row (or column) `i`: [lo, hi].
ACTORFLOW_HOST_DEVICE inline void covering(int64_t i, int64_t k, int64_t stride,
                                           int64_t pad, int64_t out,
                                           int64_t* lo, int64_t* hi) {
  auto first = i + pad - k + 1;
  *lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  auto last = (i + pad) / stride;
  *hi = last < out - 1 ? last : out - 1;
}

/// The offset (channel 0) of the first maximum of window (b, oy, ox) in
/// channel `c`, in row-major order; -1 for a window outside the image.
template <class T>
ACTORFLOW_HOST_DEVICE int64_t first_max(const T* x, const pool_geometry& g,
                                        int64_t b, int64_t oy, int64_t ox,
                                        int64_t c) {
  auto w = clip(g, oy, ox);
  int64_t best = -1;
  T top = 0;
  for (auto iy = w.y0; iy < w.y1; ++iy)
    for (auto ix = w.x0; ix < w.x1; ++ix) {
      auto off = image_at(g, b, iy, ix);
      if (best < 0 || x[off + c] > top) {
        best = off;
        top = x[off + c];
      }
    }
  return best;
}

/// Output element `i` of MaxPool (`max`) or AvgPool of `x`.
template <class T>
ACTORFLOW_HOST_DEVICE T pool_at(const T* x, const pool_geometry& g, int64_t i,
                                bool max) {
  auto c = i % g.channels;
  auto rest = i / g.channels;
  auto ox = rest % g.out_w;
  rest /= g.out_w;
  auto oy = rest % g.out_h;
  auto b = rest / g.out_h;
  auto w = clip(g, oy, ox);
  T acc = max ? -std::numeric_limits<T>::infinity() : T(0);
  for (auto iy = w.y0; iy < w.y1; ++iy)
    for (auto ix = w.x0; ix < w.x1; ++ix) {
      T v = x[image_at(g, b, iy, ix) + c];
      acc = max ? (v > acc ? v : acc) : acc + v;
    }
  if (!max)
    acc /= static_cast<T>((w.y1 - w.y0) * (w.x1 - w.x0));
  return acc;
}

/// Input element `i` of MaxPoolGrad (`max`: the gradients of the windows
/// whose first maximum it is) or AvgPoolGrad (each covering window's
/// gradient over its size), summed over the covering windows in the
/// order the CPU's kernel adds them.
template <class T>
ACTORFLOW_HOST_DEVICE T pool_grad_at(const T* x, const T* dy,
                                     const pool_geometry& g, int64_t i,
                                     bool max) {
  auto c = i % g.channels;
  auto rest = i / g.channels;
  auto ix = rest % g.in_w;
  rest /= g.in_w;
  auto iy = rest % g.in_h;
  auto b = rest / g.in_h;
  int64_t oy0, oy1, ox0, ox1;
  covering(iy, g.k_h, g.stride_h, g.pad_top, g.out_h, &oy0, &oy1);
  covering(ix, g.k_w, g.stride_w, g.pad_left, g.out_w, &ox0, &ox1);
  auto self = image_at(g, b, iy, ix);
  T acc = 0;
  for (auto oy = oy0; oy <= oy1; ++oy)
    for (auto ox = ox0; ox <= ox1; ++ox) {
      auto grad = dy[((b * g.out_h + oy) * g.out_w + ox) * g.channels + c];
      if (max) {
        if (first_max(x, g, b, oy, ox, c) == self)
          acc += grad;
      } else {
        auto w = clip(g, oy, ox);
        acc += grad / static_cast<T>((w.y1 - w.y0) * (w.x1 - w.x0));
      }
    }
  return acc;
}

} // namespace actorflow::ops::gpu
