#include "actorflow/graph/array_ops.hpp"

#include "actorflow/graph/builder_ops.hpp"

#include "builder_util.hpp"

namespace actorflow::graph {

using detail::first;
using detail::int_constant;
using detail::typed;

namespace detail {

output int_constant(const scope& s, const std::string& hint,
                    const std::vector<int64_t>& values, bool scalar,
                    core::dtype type) {
  core::tensor t{type, scalar
                         ? core::shape{}
                         : core::shape{static_cast<int64_t>(values.size())}};
  for (size_t i = 0; i < values.size(); ++i)
    if (type == core::dtype::int32)
      t.mutable_data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    else
      t.mutable_data<int64_t>()[i] = values[i];
  return first(
    s.add_node("Const", hint, {}, {{"value", std::move(t)}, {"dtype", type}}));
}

} // namespace detail

namespace {

/// The int64 constant for input `name` of an `op` node, named op/name.
output ints(const scope& s, const char* op, const char* name,
            const std::vector<int64_t>& values, bool scalar = false) {
  return int_constant(s, std::string{op} + "/" + name, values, scalar);
}

} // namespace

output fill(const scope& s, const std::vector<int64_t>& dims,
            const output& value) {
  return typed(s, "Fill", {ints(s, "Fill", "dims", dims), value},
               {{"index_type", core::dtype::int64}, {"T", value.dtype()}});
}

output fill(const scope& s, const output& dims, const output& value) {
  return typed(s, "Fill", {dims, value},
               {{"index_type", dims.dtype()}, {"T", value.dtype()}});
}

output zeros(const scope& s, const std::vector<int64_t>& dims,
             core::dtype type) {
  return fill(s, dims, constant(s.sub("zero"), 0.0, type));
}

output ones(const scope& s, const std::vector<int64_t>& dims,
            core::dtype type) {
  return fill(s, dims, constant(s.sub("one"), 1.0, type));
}

output zeros_like(const scope& s, const output& x) {
  return typed(s, "ZerosLike", {x});
}

output ones_like(const scope& s, const output& x) {
  return typed(s, "OnesLike", {x});
}

output shape_of(const scope& s, const output& x, core::dtype out_type) {
  return typed(s, "Shape", {x}, {{"out_type", out_type}});
}

output rank(const scope& s, const output& x) {
  return typed(s, "Rank", {x});
}

output size(const scope& s, const output& x, core::dtype out_type) {
  return typed(s, "Size", {x}, {{"out_type", out_type}});
}

output reshape(const scope& s, const output& x,
               const std::vector<int64_t>& dims) {
  return reshape(s, x, ints(s, "Reshape", "shape", dims));
}

output reshape(const scope& s, const output& x, const output& dims) {
  return typed(s, "Reshape", {x, dims}, {{"Tshape", dims.dtype()}});
}

output expand_dims(const scope& s, const output& x, int64_t axis) {
  return typed(s, "ExpandDims", {x, ints(s, "ExpandDims", "dim", {axis}, true)},
               {{"Tdim", core::dtype::int64}});
}

output squeeze(const scope& s, const output& x,
               const std::vector<int64_t>& axes) {
  return typed(s, "Squeeze", {x}, {{"squeeze_dims", axes}});
}

output transpose(const scope& s, const output& x,
                 const std::vector<int64_t>& perm) {
  return typed(s, "Transpose", {x, ints(s, "Transpose", "perm", perm)},
               {{"Tperm", core::dtype::int64}});
}

output concat(const scope& s, const std::vector<output>& xs, int64_t axis) {
  auto inputs = xs;
  inputs.push_back(ints(s, "ConcatV2", "axis", {axis}, true));
  return typed(
    s, "ConcatV2", inputs,
    {{"N", static_cast<int64_t>(xs.size())}, {"Tidx", core::dtype::int64}});
}

std::vector<output> split(const scope& s, const output& x, int64_t axis,
                          int64_t num) {
  auto dim
    = int_constant(s, "Split/split_dim", {axis}, true, core::dtype::int32);
  return s.add_node("Split", "Split", {dim, x},
                    {{"T", x.dtype()}, {"num_split", num}});
}

std::vector<output> split_v(const scope& s, const output& x,
                            const std::vector<int64_t>& sizes, int64_t axis) {
  auto dim
    = int_constant(s, "SplitV/split_dim", {axis}, true, core::dtype::int32);
  return s.add_node("SplitV", "SplitV",
                    {x, ints(s, "SplitV", "size_splits", sizes), dim},
                    {{"T", x.dtype()},
                     {"num_split", static_cast<int64_t>(sizes.size())},
                     {"Tlen", core::dtype::int64}});
}

output stack(const scope& s, const std::vector<output>& xs, int64_t axis) {
  return typed(s, "Pack", xs,
               {{"N", static_cast<int64_t>(xs.size())}, {"axis", axis}});
}

std::vector<output> unstack(const scope& s, const output& x, int64_t num,
                            int64_t axis) {
  return s.add_node("Unpack", "Unpack", {x},
                    {{"T", x.dtype()}, {"num", num}, {"axis", axis}});
}

output slice(const scope& s, const output& x, const std::vector<int64_t>& begin,
             const std::vector<int64_t>& size) {
  return typed(
    s, "Slice",
    {x, ints(s, "Slice", "begin", begin), ints(s, "Slice", "size", size)},
    {{"Index", core::dtype::int64}});
}

output strided_slice(const scope& s, const output& x,
                     const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end,
                     const std::vector<int64_t>& strides,
                     strided_slice_options o) {
  return typed(s, "StridedSlice",
               {x, ints(s, "StridedSlice", "begin", begin),
                ints(s, "StridedSlice", "end", end),
                ints(s, "StridedSlice", "strides", strides)},
               {{"Index", core::dtype::int64},
                {"begin_mask", o.begin},
                {"end_mask", o.end},
                {"ellipsis_mask", o.ellipsis},
                {"new_axis_mask", o.new_axis},
                {"shrink_axis_mask", o.shrink_axis}});
}

output gather(const scope& s, const output& params, const output& indices,
              int64_t axis) {
  return first(
    s.add_node("GatherV2", "GatherV2",
               {params, indices, ints(s, "GatherV2", "axis", {axis}, true)},
               {{"Tparams", params.dtype()},
                {"Tindices", indices.dtype()},
                {"Taxis", core::dtype::int64}}));
}

output broadcast_to(const scope& s, const output& x, const output& shape) {
  return typed(s, "BroadcastTo", {x, shape}, {{"Tidx", shape.dtype()}});
}

output tile(const scope& s, const output& x,
            const std::vector<int64_t>& multiples) {
  return typed(s, "Tile", {x, ints(s, "Tile", "multiples", multiples)},
               {{"Tmultiples", core::dtype::int64}});
}

output pad(const scope& s, const output& x,
           const std::vector<std::pair<int64_t, int64_t>>& paddings) {
  core::tensor t{core::dtype::int64,
                 {static_cast<int64_t>(paddings.size()), 2}};
  for (size_t i = 0; i < paddings.size(); ++i) {
    t.mutable_data<int64_t>()[2 * i] = paddings[i].first;
    t.mutable_data<int64_t>()[2 * i + 1] = paddings[i].second;
  }
  auto p = first(
    s.add_node("Const", "Pad/paddings", {},
               {{"value", std::move(t)}, {"dtype", core::dtype::int64}}));
  return typed(s, "Pad", {x, p}, {{"Tpaddings", core::dtype::int64}});
}

output one_hot(const scope& s, const output& indices, int64_t depth,
               const output& on_value, const output& off_value, int64_t axis) {
  auto dt = int_constant(s, "OneHot/depth", {depth}, true, core::dtype::int32);
  return one_hot(s, indices, dt, on_value, off_value, axis);
}

output one_hot(const scope& s, const output& indices, const output& depth,
               const output& on_value, const output& off_value, int64_t axis) {
  return first(s.add_node(
    "OneHot", "OneHot", {indices, depth, on_value, off_value},
    {{"T", on_value.dtype()}, {"TI", indices.dtype()}, {"axis", axis}}));
}

output range(const scope& s, const output& start, const output& limit,
             const output& delta) {
  return first(s.add_node("Range", "Range", {start, limit, delta},
                          {{"Tidx", start.dtype()}}));
}

output reverse(const scope& s, const output& x,
               const std::vector<int64_t>& axes) {
  return typed(s, "ReverseV2", {x, ints(s, "ReverseV2", "axis", axes)},
               {{"Tidx", core::dtype::int64}});
}

} // namespace actorflow::graph
