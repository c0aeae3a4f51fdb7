#pragma once

// Internal: the shape functions of the array ops. Each uses constant
// inputs (shapes, axes, permutations) when the graph has them and leaves
// what depends on run-time values unknown.

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

/// Reads the values of input `i` as a shape vector; unknown unless
/// constant (then with its length as rank if at least that is known).
core::shape shape_from_input(const shape_context& ctx, size_t i);

core::status fill_shape(shape_context& ctx);
core::status vector_of_rank_shape(shape_context& ctx);
core::status scalar_shape(shape_context& ctx);
core::status reshape_fn(shape_context& ctx);
core::status expand_dims_fn(shape_context& ctx);
core::status squeeze_fn(shape_context& ctx);
core::status transpose_fn(shape_context& ctx);
core::status concat_v1_fn(shape_context& ctx);
core::status concat_v2_fn(shape_context& ctx);
core::status split_v1_fn(shape_context& ctx);
core::status split_v_fn(shape_context& ctx);
core::status pack_fn(shape_context& ctx);
core::status unpack_fn(shape_context& ctx);
core::status slice_fn(shape_context& ctx);
core::status strided_slice_fn(shape_context& ctx);
core::status gather_fn(shape_context& ctx);
core::status tile_fn(shape_context& ctx);
core::status pad_fn(shape_context& ctx);
core::status one_hot_fn(shape_context& ctx);
core::status range_fn(shape_context& ctx);

} // namespace actorflow::ops::defs
