#pragma once

#include <cstdint>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::ops {

/// The shape rules of array ops, shared by their shape functions (where
/// dimensions may be unknown, -1) and their kernels (where they are known).

/// Reshape: `requested` may hold one -1, inferred from the element count.
core::status reshape_shape(const core::shape& in,
                           const std::vector<int64_t>& requested,
                           core::shape* out);

/// Concat along `axis` (negative counts from the end).
core::status concat_shape(const std::vector<core::shape>& in, int64_t axis,
                          core::shape* out);

/// Transpose by permutation `perm`.
core::status transpose_shape(const core::shape& in,
                             const std::vector<int64_t>& perm,
                             core::shape* out);

/// What StridedSlice reads: for every input dimension its first index,
/// step and count, and the output shape (shrunk axes dropped, new axes
/// added).
struct strided_slice_plan {
  std::vector<int64_t> begin;
  std::vector<int64_t> step;
  std::vector<int64_t> count;
  core::shape out;
};

/// The masks of StridedSlice, as attrs carry them.
struct strided_slice_masks {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t ellipsis = 0;
  int64_t new_axis = 0;
  int64_t shrink_axis = 0;
};

/// Plans StridedSlice of a fully known `in` with Python's slice rules
/// (clamping, negative indices and steps, one ellipsis).
core::status plan_strided_slice(const core::shape& in,
                                const std::vector<int64_t>& begin,
                                const std::vector<int64_t>& end,
                                const std::vector<int64_t>& strides,
                                const strided_slice_masks& masks,
                                strided_slice_plan* plan);

} // namespace actorflow::ops
