#pragma once

// Internal: moving elements between tensors without knowing what they
// mean, for the array kernels (Transpose, Slice, Concat, Gather, ...).

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/checks.hpp"
#include "actorflow/core/shape.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::ops::cpu {

using common::strides_of;

/// Calls `f(U{})` with `U` a type of the size of one element of `t`: the
/// array kernels only move elements, so they are built once per size
/// (strings and variants, which own memory, are their own types).
template <class F>
void visit_storage(core::dtype t, F&& f) {
  if (t == core::dtype::string) {
    f(std::string{});
    return;
  }
  if (t == core::dtype::variant) {
    f(core::variant{});
    return;
  }
  switch (core::size_of(t)) {
    case 1: f(uint8_t{}); break;
    case 2: f(uint16_t{}); break;
    case 4: f(uint32_t{}); break;
    case 8: f(uint64_t{}); break;
    default: f(std::complex<double>{});
  }
}

/// Copies the elements of a `dims`-shaped box: element `i` (a multi-index)
/// is read from `src[src_base + sum(i * src_strides)]` and written to
/// `dst[dst_base + sum(i * dst_strides)]`. Strides may be negative or zero.
template <class U>
void copy_box(const U* src, int64_t src_base,
              const std::vector<int64_t>& src_strides, U* dst, int64_t dst_base,
              const std::vector<int64_t>& dst_strides,
              const std::vector<int64_t>& dims) {
  int rank = static_cast<int>(dims.size());
  for (auto d : dims)
    if (d == 0)
      return;
  if (rank == 0) {
    dst[dst_base] = src[src_base];
    return;
  }
  auto last = static_cast<size_t>(rank - 1);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t s = src_base, o = dst_base;
  for (;;) {
    // The innermost dimension in one loop.
    for (int64_t k = 0; k < dims[last]; ++k)
      dst[o + k * dst_strides[last]] = src[s + k * src_strides[last]];
    int d = rank - 2;
    for (; d >= 0; --d) {
      auto du = static_cast<size_t>(d);
      s += src_strides[du];
      o += dst_strides[du];
      if (++index[du] < dims[du])
        break;
      s -= src_strides[du] * dims[du];
      o -= dst_strides[du] * dims[du];
      index[du] = 0;
    }
    if (d < 0)
      return;
  }
}

/// `copy_box` on tensors of any dtype.
void copy_box(const core::tensor& src, int64_t src_base,
              const std::vector<int64_t>& src_strides, core::tensor& dst,
              int64_t dst_base, const std::vector<int64_t>& dst_strides,
              const std::vector<int64_t>& dims);

} // namespace actorflow::ops::cpu
