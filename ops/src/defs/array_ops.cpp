#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"
#include "array_shape_fns.hpp"

namespace actorflow::ops::defs {

namespace {

core::status const_shape(shape_context& ctx) {
  core::tensor value;
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("value", &value));
  core::dtype type = core::dtype::invalid;
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("dtype", &type));
  if (!value.valid() || value.dtype() != type)
    return core::invalid_argument_error(
      "Const value has dtype ", core::to_string(value.dtype()),
      " but attr dtype is ", core::to_string(type));
  ctx.set_output(0, value.shape());
  return core::status::ok();
}

core::status select_shape(shape_context& ctx) {
  const auto& c = ctx.input(0);
  if (!ctx.input(1).compatible_with(ctx.input(2)))
    return core::invalid_argument_error(
      "Select needs t and e of one shape, got ", ctx.input(1).to_string(),
      " and ", ctx.input(2).to_string());
  auto s = ctx.input(1).merge(ctx.input(2));
  // A vector condition picks rows of a matrix or higher (TensorFlow's
  // Select); otherwise it has t's shape, or none.
  bool rows = c.rank() == 1 && s.known_rank() && s.rank() > 1
              && (c.dim(0) < 0 || s.dim(0) < 0 || c.dim(0) == s.dim(0));
  if (c.known_rank() && c.rank() != 0 && !rows && !c.compatible_with(s))
    return core::invalid_argument_error(
      "Select needs a scalar condition, one of shape ", s.to_string(),
      " or a vector of its first dimension, got ", c.to_string());
  ctx.set_output(0, std::move(s));
  return core::status::ok();
}

core::status placeholder_with_default_shape(shape_context& ctx) {
  core::shape want;
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("shape", &want));
  if (!ctx.input(0).compatible_with(want))
    return core::invalid_argument_error(
      "PlaceholderWithDefault's input has shape ", ctx.input(0).to_string(),
      ", its shape attr is ", want.to_string());
  ctx.set_output(0, std::move(want));
  return core::status::ok();
}

core::status each_input_shape(shape_context& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    ctx.set_output(i, ctx.input(i));
  return core::status::ok();
}

/// SpaceToBatchND's and BatchToSpaceND's output: [batch * blocks,
/// padded / block..., rest] or [batch / blocks, dim * block - crops...,
/// rest], where the block shape and the edges are constants.
core::status space_batch_shape(shape_context& ctx, bool to_batch) {
  const auto& x = ctx.input(0);
  std::vector<int64_t> block, edges;
  // The edges are a matrix [M, 2]: read flat.
  if (const auto* e = ctx.input_tensor(2)) {
    for (int64_t i = 0; i < e->num_elements(); ++i)
      edges.push_back(e->dtype() == core::dtype::int64
                        ? e->data<int64_t>()[i]
                        : int64_t{e->data<int32_t>()[i]});
  }
  if (!x.known_rank() || !ctx.input_ints(1, &block)
      || edges.size() != 2 * block.size()
      || x.rank() < 1 + static_cast<int>(block.size()))
    return core::status::ok();
  auto dims = x.dims();
  int64_t blocks = 1;
  for (auto b : block)
    blocks *= b;
  if (dims[0] >= 0)
    dims[0] = to_batch ? dims[0] * blocks : dims[0] / blocks;
  for (size_t j = 0; j < block.size(); ++j) {
    auto& d = dims[j + 1];
    if (d >= 0 && block[j] > 0)
      d = to_batch ? (d + edges[2 * j] + edges[2 * j + 1]) / block[j]
                   : d * block[j] - edges[2 * j] - edges[2 * j + 1];
  }
  ctx.set_output(0, core::shape{dims});
  return core::status::ok();
}

} // namespace

core::status register_array_ops(op_registry& r) {
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Const")
                                    .output("output: dtype")
                                    .attr("value: tensor")
                                    .attr("dtype: type")
                                    .shape_fn(const_shape)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Placeholder")
                                    .output("output: dtype")
                                    .attr("dtype: type")
                                    .attr("shape: shape = ?")
                                    .shape_fn(shape_from_attr)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Identity")
                                    .input("input: T")
                                    .output("output: T")
                                    .attr("T: type")
                                    .shape_fn(unchanged_shape)));
  // Its input when nothing feeds it (TensorFlow's PlaceholderWithDefault:
  // Keras' learning phase), the fed value when something does; the input
  // must fit `shape`.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("PlaceholderWithDefault")
                                    .input("input: dtype")
                                    .output("output: dtype")
                                    .attr("dtype: type")
                                    .attr("shape: shape")
                                    .shape_fn(placeholder_with_default_shape)));
  // Identity of several tensors at once (what tf.identity_n and Keras'
  // layer outputs write): output i is input i.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("IdentityN")
                                    .input("input: T")
                                    .output("output: T")
                                    .attr("T: list(type)")
                                    .shape_fn(each_input_shape)));
  // Identity to the forward pass; automatic differentiation sends no
  // gradient through it.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("StopGradient")
                                    .input("input: T")
                                    .output("output: T")
                                    .attr("T: type")
                                    .shape_fn(unchanged_shape)));
  // Cast between the real dtypes and bool; float to integer truncates
  // toward zero, anything nonzero becomes true.
  const char* castable = "{bool, int8, int16, int32, int64, uint8, uint16, "
                         "uint32, uint64, float16, bfloat16, float, double}";
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Cast")
                                    .input("x: SrcT")
                                    .output("y: DstT")
                                    .attr(std::string{"SrcT: "} + castable)
                                    .attr(std::string{"DstT: "} + castable)
                                    // TensorFlow's: true truncates instead
                                    // of rounding (not supported).
                                    .attr("Truncate: bool = false")
                                    .shape_fn(unchanged_shape)));
  // Select (where): condition ? t : e, element-wise; the condition has the
  // shape of t and e, or is a scalar.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Select")
                                    .input("condition: bool")
                                    .input("t: T")
                                    .input("e: T")
                                    .output("output: T")
                                    .attr("T: {bool, int32, int64, float16, "
                                          "bfloat16, float, double, string}")
                                    .shape_fn(select_shape)));
  ACTORFLOW_RETURN_IF_ERROR(register_array_transform_ops(r));
  return r.add(op_def_builder("NoOp"));
}

core::status register_array_transform_ops(op_registry& r) {
  const char* index = "{int32, int64} = int32";
  auto idx = [&](const char* name) { return std::string{name} + ": " + index; };
  std::vector<op_def_builder> ops;
  ops.push_back(op_def_builder("Fill")
                  .input("dims: index_type")
                  .input("value: T")
                  .output("output: T")
                  .attr("T: type")
                  .attr(idx("index_type"))
                  .shape_fn(fill_shape));
  // ZerosLike also of a TensorList (a loop gradient's start).
  const char* like_types = "{bool, int32, int64, float16, bfloat16, float, "
                           "double";
  for (auto [name, extra] :
       {std::pair{"ZerosLike", ", variant}"}, std::pair{"OnesLike", "}"}})
    ops.push_back(op_def_builder(name)
                    .input("x: T")
                    .output("y: T")
                    .attr(std::string{"T: "} + like_types + extra)
                    .shape_fn(unchanged_shape));
  ops.push_back(op_def_builder("Shape")
                  .input("input: T")
                  .output("output: out_type")
                  .attr("T: type")
                  .attr(idx("out_type"))
                  .shape_fn(vector_of_rank_shape));
  ops.push_back(op_def_builder("ShapeN")
                  .input("input: N * T")
                  .output("output: N * out_type")
                  .attr("N: int")
                  .attr("T: type")
                  .attr(idx("out_type"))
                  .shape_fn(vector_of_rank_shape));
  ops.push_back(op_def_builder("Rank")
                  .input("input: T")
                  .output("output: int32")
                  .attr("T: type")
                  .shape_fn(scalar_shape));
  ops.push_back(op_def_builder("Size")
                  .input("input: T")
                  .output("output: out_type")
                  .attr("T: type")
                  .attr(idx("out_type"))
                  .shape_fn(scalar_shape));
  ops.push_back(op_def_builder("Reshape")
                  .input("tensor: T")
                  .input("shape: Tshape")
                  .output("output: T")
                  .attr("T: type")
                  .attr(idx("Tshape"))
                  .shape_fn(reshape_fn));
  ops.push_back(op_def_builder("ExpandDims")
                  .input("input: T")
                  .input("dim: Tdim")
                  .output("output: T")
                  .attr("T: type")
                  .attr(idx("Tdim"))
                  .shape_fn(expand_dims_fn));
  ops.push_back(op_def_builder("Squeeze")
                  .input("input: T")
                  .output("output: T")
                  .attr("T: type")
                  .attr("squeeze_dims: list(int) = []")
                  .shape_fn(squeeze_fn));
  ops.push_back(op_def_builder("Transpose")
                  .input("x: T")
                  .input("perm: Tperm")
                  .output("y: T")
                  .attr("T: type")
                  .attr(idx("Tperm"))
                  .shape_fn(transpose_fn));
  ops.push_back(op_def_builder("ConcatV2")
                  .input("values: N * T")
                  .input("axis: Tidx")
                  .output("output: T")
                  .attr("N: int")
                  .attr("T: type")
                  .attr(idx("Tidx"))
                  .shape_fn(concat_v2_fn));
  ops.push_back(op_def_builder("Concat")
                  .input("concat_dim: int32")
                  .input("values: N * T")
                  .output("output: T")
                  .attr("N: int")
                  .attr("T: type")
                  .shape_fn(concat_v1_fn));
  ops.push_back(op_def_builder("Split")
                  .input("split_dim: int32")
                  .input("value: T")
                  .output("output: num_split * T")
                  .attr("num_split: int")
                  .attr("T: type")
                  .shape_fn(split_v1_fn));
  ops.push_back(op_def_builder("SplitV")
                  .input("value: T")
                  .input("size_splits: Tlen")
                  .input("split_dim: int32")
                  .output("output: num_split * T")
                  .attr("num_split: int")
                  .attr("T: type")
                  .attr("Tlen: {int32, int64} = int64")
                  .shape_fn(split_v_fn));
  ops.push_back(op_def_builder("Pack")
                  .input("values: N * T")
                  .output("output: T")
                  .attr("N: int")
                  .attr("T: type")
                  .attr("axis: int = 0")
                  .shape_fn(pack_fn));
  ops.push_back(op_def_builder("Unpack")
                  .input("value: T")
                  .output("output: num * T")
                  .attr("num: int")
                  .attr("T: type")
                  .attr("axis: int = 0")
                  .shape_fn(unpack_fn));
  ops.push_back(op_def_builder("Slice")
                  .input("input: T")
                  .input("begin: Index")
                  .input("size: Index")
                  .output("output: T")
                  .attr("T: type")
                  .attr(idx("Index"))
                  .shape_fn(slice_fn));
  // StridedSlice's masks (begin, end, ellipsis, new axis, shrink axis).
  auto masked = [](op_def_builder b) {
    return b.attr("begin_mask: int = 0")
      .attr("end_mask: int = 0")
      .attr("ellipsis_mask: int = 0")
      .attr("new_axis_mask: int = 0")
      .attr("shrink_axis_mask: int = 0");
  };
  ops.push_back(masked(op_def_builder("StridedSlice")
                         .input("input: T")
                         .input("begin: Index")
                         .input("end: Index")
                         .input("strides: Index")
                         .output("output: T")
                         .attr("T: type")
                         .attr(idx("Index")))
                  .shape_fn(strided_slice_fn));
  // StridedSlice's gradient: dy put back where the slice took it from, in
  // zeros of the input's shape.
  ops.push_back(masked(op_def_builder("StridedSliceGrad")
                         .input("shape: Index")
                         .input("begin: Index")
                         .input("end: Index")
                         .input("strides: Index")
                         .input("dy: T")
                         .output("output: T")
                         .attr("T: {float16, bfloat16, float, double, int32, "
                               "int64}")
                         .attr(idx("Index")))
                  .shape_fn([](shape_context& ctx) {
                    std::vector<int64_t> dims;
                    ctx.set_output(0, ctx.input_ints(0, &dims)
                                        ? core::shape{dims}
                                        : core::shape::unknown());
                    return core::status::ok();
                  }));
  ops.push_back(op_def_builder("GatherV2")
                  .input("params: Tparams")
                  .input("indices: Tindices")
                  .input("axis: Taxis")
                  .output("output: Tparams")
                  .attr("Tparams: type")
                  .attr("Tindices: {int32, int64}")
                  .attr(idx("Taxis"))
                  .attr("batch_dims: int = 0")
                  .shape_fn(gather_fn));
  ops.push_back(op_def_builder("Gather")
                  .input("params: Tparams")
                  .input("indices: Tindices")
                  .output("output: Tparams")
                  .attr("Tparams: type")
                  .attr("Tindices: {int32, int64}")
                  .attr("validate_indices: bool = true")
                  .shape_fn(gather_fn));
  ops.push_back(op_def_builder("Tile")
                  .input("input: T")
                  .input("multiples: Tmultiples")
                  .output("output: T")
                  .attr("T: type")
                  .attr(idx("Tmultiples"))
                  .shape_fn(tile_fn));
  ops.push_back(op_def_builder("Pad")
                  .input("input: T")
                  .input("paddings: Tpaddings")
                  .output("output: T")
                  .attr("T: type")
                  .attr(idx("Tpaddings"))
                  .shape_fn(pad_fn));
  // Blocks of the spatial dimensions into the batch and back (around a
  // dilated convolution).
  for (bool to_batch : {true, false})
    ops.push_back(op_def_builder(to_batch ? "SpaceToBatchND" : "BatchToSpaceND")
                    .input("input: T")
                    .input("block_shape: Tblock_shape")
                    .input(to_batch ? "paddings: Tpaddings" : "crops: Tcrops")
                    .output("output: T")
                    .attr("T: type")
                    .attr(idx("Tblock_shape"))
                    .attr(idx(to_batch ? "Tpaddings" : "Tcrops"))
                    .shape_fn([to_batch](shape_context& ctx) {
                      return space_batch_shape(ctx, to_batch);
                    }));
  ops.push_back(op_def_builder("PadV2")
                  .input("input: T")
                  .input("paddings: Tpaddings")
                  .input("constant_values: T")
                  .output("output: T")
                  .attr("T: type")
                  .attr(idx("Tpaddings"))
                  .shape_fn(pad_fn));
  ops.push_back(op_def_builder("OneHot")
                  .input("indices: TI")
                  .input("depth: int32")
                  .input("on_value: T")
                  .input("off_value: T")
                  .output("output: T")
                  .attr("T: {bool, int32, int64, float, double}")
                  .attr("TI: {uint8, int32, int64} = int64")
                  .attr("axis: int = -1")
                  .shape_fn(one_hot_fn));
  ops.push_back(op_def_builder("Range")
                  .input("start: Tidx")
                  .input("limit: Tidx")
                  .input("delta: Tidx")
                  .output("output: Tidx")
                  .attr("Tidx: {int32, int64, float, double} = int32")
                  .shape_fn(range_fn));
  ops.push_back(op_def_builder("ReverseV2")
                  .input("tensor: T")
                  .input("axis: Tidx")
                  .output("output: T")
                  .attr("T: type")
                  .attr(idx("Tidx"))
                  .shape_fn(unchanged_shape));
  // The first seq_lengths[b] slices along seq_dim reversed, for each b
  // along batch_dim (bidirectional RNNs over padded sequences).
  ops.push_back(op_def_builder("ReverseSequence")
                  .input("input: T")
                  .input("seq_lengths: Tlen")
                  .output("output: T")
                  .attr("seq_dim: int")
                  .attr("batch_dim: int = 0")
                  .attr("T: type")
                  .attr("Tlen: {int32, int64} = int64")
                  .shape_fn(unchanged_shape));
  ops.push_back(op_def_builder("Reverse")
                  .input("tensor: T")
                  .input("dims: bool")
                  .output("output: T")
                  .attr("T: type")
                  .shape_fn(unchanged_shape));
  for (const auto& b : ops)
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
