#pragma once

// Internal: NumPy broadcasting for the kernels that do it by index
// (binary ops of unequal shapes, BroadcastTo, SelectV2).

#include <array>
#include <cstdint>
#include <vector>

#include "actorflow/core/shape.hpp"

namespace actorflow::ops::cpu {

/// Strides of `s` aligned to the last `rank` dimensions of the output `out`,
/// with 0 where `s` broadcasts.
std::vector<int64_t> broadcast_strides(const core::shape& s, int rank,
                                       const core::shape& out);

/// Whether `small` broadcasts to `big` by repeating each of its elements
/// over a run of `*run` output elements: small's dimensions are big's
/// leading ones, then only 1s (`[n, 1]` to `[n, m]`: runs of m).
bool repeats_each_element(const core::shape& big, const core::shape& small,
                          int64_t* run);

/// Whether `small` broadcasts to `big` by repeating all of it: small's
/// dimensions are 1s, then big's trailing ones (`[m]` to `[n, m]`).
bool repeats_whole(const core::shape& big, const core::shape& small);

/// Calls `f(i, offsets)` for each element i of an `out`-shaped result, in
/// order, with the element's offset in each of N broadcast inputs (whose
/// shapes are `inputs`).
template <size_t N, class F>
void for_each_broadcast(const core::shape& out,
                        const std::array<const core::shape*, N>& inputs,
                        F&& f) {
  int rank = out.rank();
  std::array<std::vector<int64_t>, N> strides;
  for (size_t k = 0; k < N; ++k)
    strides[k] = broadcast_strides(*inputs[k], rank, out);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  std::array<int64_t, N> offsets{};
  for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
    f(i, offsets);
    for (int d = rank - 1; d >= 0; --d) {
      auto du = static_cast<size_t>(d);
      for (size_t k = 0; k < N; ++k)
        offsets[k] += strides[k][du];
      if (++index[du] < out.dim(d))
        break;
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= strides[k][du] * out.dim(d);
      index[du] = 0;
    }
  }
}

} // namespace actorflow::ops::cpu
