#pragma once

// Internal: element-wise kernels' work over ranges of elements.

#include <cstdint>

#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/core/tensor.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "kernels.hpp"
#include "parallel_split.hpp"

namespace actorflow::ops::cpu {

/// Elements [begin, end) of `t` as a 1-D Eigen tensor.
template <class T>
core::tensor::map<const T, 1> elements(const core::tensor& t, int64_t begin,
                                       int64_t end) {
  return {t.data<T>() + begin, end - begin};
}

/// Elements [begin, end) of `t`, to write.
template <class T>
core::tensor::map<T, 1> mutable_elements(core::tensor& t, int64_t begin,
                                         int64_t end) {
  return {t.mutable_data<T>() + begin, end - begin};
}

/// Runs `range(begin, end)` over [0, `n`): on the calling thread below
/// `parallel_threshold` elements, else in blocks over the device's pool,
/// the calling thread taking one (`parallel_split::for_range`).
///
/// Not Eigen's `ThreadPoolDevice`: its caller sleeps on a barrier until
/// the pool's threads are done and wakes tens of microseconds late on a
/// VM. The Mul and Sub that scale a batch of Fashion-MNIST pixels (100,352
/// elements) took 24-26 us each so, 4-7 us on one thread
/// (docs/performance.md, P3).
template <class Range>
void for_elements(kernel_context& ctx, int64_t n, Range&& range) {
  if (n < parallel_threshold) {
    range(int64_t{0}, n);
    return;
  }
  parallel_split{&ctx, true}.for_range(n, range);
}

} // namespace actorflow::ops::cpu
