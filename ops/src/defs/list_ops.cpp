// TensorFlow 2's TensorList ops: lists of tensors passed by value as
// scalar `variant` tensors (ops::tensor_list).

#include "array_shape_fns.hpp"
#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

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
                  .attr("element_dtype: type"));
  // The items stacked along a new first dimension.
  ops.push_back(op_def_builder("TensorListStack")
                  .input("input_handle: variant")
                  .input("element_shape: int32")
                  .output("tensor: element_dtype")
                  .attr("element_dtype: type")
                  .attr("num_elements: int = -1"));
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
                  .shape_fn(scalar_shape));
  // Items `indices` stacked (never set: zeros of the element shape).
  ops.push_back(op_def_builder("TensorListGather")
                  .input("input_handle: variant")
                  .input("indices: int32")
                  .input("element_shape: int32")
                  .output("values: element_dtype")
                  .attr("element_dtype: type"));
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
                  .attr("shape_type: {int32, int64}"));
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
