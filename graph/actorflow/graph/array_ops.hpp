#pragma once

/// Op functions for array ops: making, reshaping, slicing, joining and
/// reordering tensors. Shapes, axes and sizes given as vectors become
/// constants, so shape inference sees them.

#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"
#include "actorflow/ops/array_shapes.hpp"

namespace actorflow::graph {

/// A tensor of `dims` filled with scalar `value`.
output fill(const scope& s, const std::vector<int64_t>& dims,
            const output& value);
/// A tensor of the shape `dims` holds at run time (an int32 or int64
/// vector), filled with scalar `value`.
output fill(const scope& s, const output& dims, const output& value);

/// Zeros (ones) of `dims` and `type`, as `tf.zeros(shape, dtype)`.
output zeros(const scope& s, const std::vector<int64_t>& dims,
             core::dtype type = core::dtype::float32);
output ones(const scope& s, const std::vector<int64_t>& dims,
            core::dtype type = core::dtype::float32);

output zeros_like(const scope& s, const output& x);
output ones_like(const scope& s, const output& x);
output shape_of(const scope& s, const output& x,
                core::dtype out_type = core::dtype::int32);
output rank(const scope& s, const output& x);
output size(const scope& s, const output& x,
            core::dtype out_type = core::dtype::int32);

/// `x` with shape `dims`; one dimension may be -1.
output reshape(const scope& s, const output& x,
               const std::vector<int64_t>& dims);
/// `x` with the shape held by `dims` at run time.
output reshape(const scope& s, const output& x, const output& dims);
output expand_dims(const scope& s, const output& x, int64_t axis);
/// Removes dimensions of size 1 (those in `axes`, or all when empty).
output squeeze(const scope& s, const output& x,
               const std::vector<int64_t>& axes = {});
output transpose(const scope& s, const output& x,
                 const std::vector<int64_t>& perm);

output concat(const scope& s, const std::vector<output>& xs, int64_t axis);
/// `x` in `num` equal parts along `axis`.
std::vector<output> split(const scope& s, const output& x, int64_t axis,
                          int64_t num);
/// `x` in parts of `sizes` along `axis` (one size may be -1).
std::vector<output> split_v(const scope& s, const output& x,
                            const std::vector<int64_t>& sizes, int64_t axis);
/// Pack: the tensors stacked along a new axis.
output stack(const scope& s, const std::vector<output>& xs, int64_t axis = 0);
/// Unpack: the `num` slices of `x` along `axis`.
std::vector<output> unstack(const scope& s, const output& x, int64_t num,
                            int64_t axis = 0);

/// `size` elements from `begin` in each dimension (-1: the rest).
output slice(const scope& s, const output& x, const std::vector<int64_t>& begin,
             const std::vector<int64_t>& size);

/// The masks of `strided_slice` (begin, end, ellipsis, new_axis,
/// shrink_axis), bit i for entry i of begin/end/strides.
using strided_slice_options = ops::strided_slice_masks;

/// Python's x[begin:end:strides, ...].
output strided_slice(const scope& s, const output& x,
                     const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end,
                     const std::vector<int64_t>& strides,
                     strided_slice_options options = {});

/// The slices of `params` along `axis` picked by `indices`.
output gather(const scope& s, const output& params, const output& indices,
              int64_t axis = 0);
output tile(const scope& s, const output& x,
            const std::vector<int64_t>& multiples);
/// `x` repeated along the dimensions where it broadcasts to `shape` (an
/// int32/int64 vector), as NumPy broadcasts.
output broadcast_to(const scope& s, const output& x, const output& shape);
/// `paddings` holds (before, after) for each dimension.
output pad(const scope& s, const output& x,
           const std::vector<std::pair<int64_t, int64_t>>& paddings);
output one_hot(const scope& s, const output& indices, int64_t depth,
               const output& on_value, const output& off_value,
               int64_t axis = -1);
/// `one_hot` with the depth an int32 scalar holds at run time.
output one_hot(const scope& s, const output& indices, const output& depth,
               const output& on_value, const output& off_value,
               int64_t axis = -1);
/// [start, limit) by delta; the dtype is start's.
output range(const scope& s, const output& start, const output& limit,
             const output& delta);
output reverse(const scope& s, const output& x,
               const std::vector<int64_t>& axes);

} // namespace actorflow::graph
