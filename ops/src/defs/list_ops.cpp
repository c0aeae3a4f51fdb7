// TensorFlow 2's TensorList ops: lists of tensors passed by value as
// scalar `variant` tensors (ops::tensor_list).

#include "array_shape_fns.hpp"
#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// The item shape given by input `i` (a constant; -1 for an unknown
/// dimension, a scalar -1 for an unknown rank), or unknown.
core::shape element_shape_from(const shape_context& ctx, size_t i) {
  const auto& given = ctx.input(i);
  if (given.known_rank() && given.rank() == 0)
    return core::shape::unknown();
  return shape_from_input(ctx, i);
}

/// Output `out` is `n` items (-1: unknown) of the shape input `i` gives.
void set_items_shape(shape_context& ctx, size_t out, int64_t n, size_t i) {
  auto item = element_shape_from(ctx, i);
  if (!item.known_rank()) {
    ctx.set_output(out, core::shape::unknown());
    return;
  }
  auto dims = item.dims();
  dims.insert(dims.begin(), n);
  ctx.set_output(out, core::shape{std::move(dims)});
}

} // namespace

core::status register_list_ops(op_registry& r) {
  std::vector<op_def_builder> ops;
  // A list of `num_elements` items not set yet, of `element_shape` (-1: a
  // dimension or, as a scalar, the rank unknown).
  ops.push_back(op_def_builder("TensorListReserve")
                  .input("element_shape: shape_type")
                  .input("num_elements: int32")
                  .output("handle: variant")
                  .attr("element_dtype: type")
                  .attr("shape_type: {int32, int64}")
                  .shape_fn(scalar_shape));
  ops.push_back(op_def_builder("EmptyTensorList")
                  .input("element_shape: shape_type")
                  .input("max_num_elements: int32")
                  .output("handle: variant")
                  .attr("element_dtype: type")
                  .attr("shape_type: {int32, int64}")
                  .shape_fn(scalar_shape));
  // The rows of `tensor` as a list.
  ops.push_back(op_def_builder("TensorListFromTensor")
                  .input("tensor: element_dtype")
                  .input("element_shape: shape_type")
                  .output("output_handle: variant")
                  .attr("element_dtype: type")
                  .attr("shape_type: {int32, int64}")
                  .shape_fn(scalar_shape));
  ops.push_back(op_def_builder("TensorListSetItem")
                  .input("input_handle: variant")
                  .input("index: int32")
                  .input("item: element_dtype")
                  .output("output_handle: variant")
                  .attr("element_dtype: type")
                  .attr("resize_if_index_out_of_bounds: bool = false")
                  .shape_fn(scalar_shape));
  // Item `index`; one never set reads as zeros of the element shape.
  ops.push_back(op_def_builder("TensorListGetItem")
                  .input("input_handle: variant")
                  .input("index: int32")
                  .input("element_shape: int32")
                  .output("item: element_dtype")
                  .attr("element_dtype: type")
                  .shape_fn([](shape_context& ctx) {
                    ctx.set_output(0, element_shape_from(ctx, 2));
                    return core::status::ok();
                  }));
  // The items stacked along a new first dimension.
  ops.push_back(op_def_builder("TensorListStack")
                  .input("input_handle: variant")
                  .input("element_shape: int32")
                  .output("tensor: element_dtype")
                  .attr("element_dtype: type")
                  .attr("num_elements: int = -1")
                  .shape_fn([](shape_context& ctx) {
                    set_items_shape(
                      ctx, 0, ctx.attr_or("num_elements", int64_t{-1}), 1);
                    return core::status::ok();
                  }));
  ops.push_back(op_def_builder("TensorListLength")
                  .input("input_handle: variant")
                  .output("length: int32")
                  .shape_fn(scalar_shape));
  ops.push_back(op_def_builder("TensorListElementShape")
                  .input("input_handle: variant")
                  .output("element_shape: shape_type")
                  .attr("shape_type: {int32, int64}"));
  ops.push_back(op_def_builder("TensorListPushBack")
                  .input("input_handle: variant")
                  .input("tensor: element_dtype")
                  .output("output_handle: variant")
                  .attr("element_dtype: type")
                  .shape_fn(scalar_shape));
  ops.push_back(op_def_builder("TensorListPopBack")
                  .input("input_handle: variant")
                  .input("element_shape: int32")
                  .output("output_handle: variant")
                  .output("tensor: element_dtype")
                  .attr("element_dtype: type")
                  .shape_fn([](shape_context& ctx) {
                    ctx.set_output(0, core::shape{});
                    ctx.set_output(1, element_shape_from(ctx, 1));
                    return core::status::ok();
                  }));
  // Items `indices` stacked (never set: zeros of the element shape).
  ops.push_back(op_def_builder("TensorListGather")
                  .input("input_handle: variant")
                  .input("indices: int32")
                  .input("element_shape: int32")
                  .output("values: element_dtype")
                  .attr("element_dtype: type")
                  .shape_fn([](shape_context& ctx) {
                    const auto& at = ctx.input(1);
                    set_items_shape(
                      ctx, 0,
                      at.known_rank() && at.rank() == 1 ? at.dim(0) : -1, 2);
                    return core::status::ok();
                  }));
  // A new list with row k of `tensor` at item indices[k]: as long as the
  // highest index needs (V2: at least num_elements, -1 for none).
  ops.push_back(op_def_builder("TensorListScatter")
                  .input("tensor: element_dtype")
                  .input("indices: int32")
                  .input("element_shape: shape_type")
                  .output("output_handle: variant")
                  .attr("element_dtype: type")
                  .attr("shape_type: {int32, int64}")
                  .shape_fn(scalar_shape));
  ops.push_back(op_def_builder("TensorListScatterV2")
                  .input("tensor: element_dtype")
                  .input("indices: int32")
                  .input("element_shape: shape_type")
                  .input("num_elements: int32")
                  .output("output_handle: variant")
                  .attr("element_dtype: type")
                  .attr("shape_type: {int32, int64}")
                  .shape_fn(scalar_shape));
  ops.push_back(op_def_builder("TensorListScatterIntoExistingList")
                  .input("input_handle: variant")
                  .input("tensor: element_dtype")
                  .input("indices: int32")
                  .output("output_handle: variant")
                  .attr("element_dtype: type")
                  .shape_fn(scalar_shape));
  // The items joined along their first dimension, and each one's rows;
  // an item never set is leading_dims[i] rows of zeros.
  ops.push_back(op_def_builder("TensorListConcatV2")
                  .input("input_handle: variant")
                  .input("element_shape: shape_type")
                  .input("leading_dims: int64")
                  .output("tensor: element_dtype")
                  .output("lengths: int64")
                  .attr("element_dtype: type")
                  .attr("shape_type: {int32, int64}")
                  .shape_fn([](shape_context& ctx) {
                    // The items' rows joined: their first dimension sums.
                    auto item = element_shape_from(ctx, 1);
                    if (item.known_rank() && item.rank() >= 1) {
                      auto dims = item.dims();
                      dims.front() = -1;
                      ctx.set_output(0, core::shape{std::move(dims)});
                    }
                    ctx.set_output(1, core::shape{-1});
                    return core::status::ok();
                  }));
  // `tensor`'s rows cut into items of `lengths` rows.
  ops.push_back(op_def_builder("TensorListSplit")
                  .input("tensor: element_dtype")
                  .input("element_shape: shape_type")
                  .input("lengths: int64")
                  .output("output_handle: variant")
                  .attr("element_dtype: type")
                  .attr("shape_type: {int32, int64}")
                  .shape_fn(scalar_shape));
  // Truncated, or grown with items never set.
  ops.push_back(op_def_builder("TensorListResize")
                  .input("input_handle: variant")
                  .input("size: int32")
                  .output("output_handle: variant")
                  .shape_fn(scalar_shape));
  for (const auto& b : ops)
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
