// Gradient functions of the array ops, after TensorFlow's array_grad.py.
// Index, shape and axis inputs get no gradient.

#include "../builder_util.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/dispatch_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "grad_util.hpp"

namespace actorflow::graph::detail {

namespace {

using core::status;

/// The gradient of an op that only rearranges x's elements into another
/// shape.
status reshape_back(const scope& s, const gradient_op& op,
                    const std::vector<output>& g, std::vector<output>* in) {
  const auto& x = op.inputs[0];
  (*in)[0] = x.shape().fully_defined() ? reshape(s, g[0], x.shape().dims())
                                       : reshape(s, g[0], shape_of(s, x));
  return status::ok();
}

/// A constant axis of rank `rank`, made non-negative.
bool constant_axis(const scope& s, const output& axis, int rank, int64_t* out) {
  std::vector<int64_t> v;
  if (!constant_ints(s, axis, &v) || v.size() != 1 || rank < 0)
    return false;
  *out = v[0] < 0 ? v[0] + rank : v[0];
  return true;
}

/// The gradient of ConcatV2 (values first, axis last) or Concat (axis
/// first): g split into the inputs' sizes along the axis.
status concat_grad(const scope& s, const gradient_op& op,
                   const std::vector<output>& g, std::vector<output>* in,
                   size_t first_value, const output& axis_input) {
  size_t n = op.inputs.size() - 1;
  int64_t axis = 0;
  if (!constant_axis(s, axis_input, g[0].shape().rank(), &axis))
    return needs_constant(op, "a constant axis and a result of known rank");
  std::vector<int64_t> sizes;
  std::vector<output> size_tensors;
  for (size_t i = 0; i < n; ++i) {
    const auto& x = op.inputs[first_value + i];
    auto d
      = x.shape().known_rank() ? x.shape().dim(static_cast<int>(axis)) : -1;
    sizes.push_back(d);
    size_tensors.push_back(slice(s, shape_of(s, x), {axis}, {1}));
  }
  bool known = std::find(sizes.begin(), sizes.end(), -1) == sizes.end();
  auto size_splits
    = known ? int32_vector(s, sizes) : concat(s, size_tensors, 0);
  auto parts
    = s.add_node("SplitV", "SplitV",
                 {g[0], size_splits,
                  int_constant(s, "axis", {axis}, true, core::dtype::int32)},
                 {{"T", g[0].dtype()},
                  {"Tlen", core::dtype::int32},
                  {"num_split", static_cast<int64_t>(n)}});
  if (parts.size() != n)
    return status::ok(); // the scope holds the error
  for (size_t i = 0; i < n; ++i)
    (*in)[first_value + i] = parts[i];
  return status::ok();
}

/// The gradient of Split/SplitV: the outputs' gradients joined again.
status split_grad(const scope& s, const gradient_op& op,
                  const std::vector<output>& g, std::vector<output>* in,
                  size_t value, const output& axis_input) {
  int64_t axis = 0;
  if (!constant_axis(s, axis_input, op.inputs[value].shape().rank(), &axis))
    return needs_constant(op, "a constant axis and an input of known rank");
  (*in)[value] = concat(s, g, axis);
  return status::ok();
}

/// The gradient of Pad/PadV2: the slice of g where x was.
status pad_grad(const scope& s, const gradient_op& op,
                const std::vector<output>& g, std::vector<output>* in) {
  const auto& x = op.inputs[0];
  const auto& paddings = op.inputs[1];
  auto type = paddings.dtype();
  auto before = slice(s, paddings, {0, 0}, {-1, 1});
  auto begin = reshape(s, before, std::vector<int64_t>{-1});
  (*in)[0]
    = first(s.add_node("Slice", "Slice", {g[0], begin, shape_of(s, x, type)},
                       {{"T", g[0].dtype()}, {"Index", type}}));
  return status::ok();
}

} // namespace

void register_array_gradients(gradient_registry& r) {
  for (const char* op : {"Reshape", "ExpandDims", "Squeeze"})
    r.add(op, reshape_back);
  for (const char* op :
       {"ZerosLike", "OnesLike", "OneHot", "Shape", "Size", "Rank", "Range"})
    r.add_not_differentiable(op);

  r.add("Transpose", [](const scope& s, const gradient_op& op,
                        const std::vector<output>& g, std::vector<output>* in) {
    std::vector<int64_t> perm;
    if (!constant_ints(s, op.inputs[1], &perm))
      return needs_constant(op, "a constant permutation");
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    (*in)[0] = transpose(s, g[0], inverse);
    return status::ok();
  });
  r.add("ConcatV2", [](const scope& s, const gradient_op& op,
                       const std::vector<output>& g, std::vector<output>* in) {
    return concat_grad(s, op, g, in, 0, op.inputs.back());
  });
  r.add("Concat", [](const scope& s, const gradient_op& op,
                     const std::vector<output>& g, std::vector<output>* in) {
    return concat_grad(s, op, g, in, 1, op.inputs.front());
  });
  r.add("Split", [](const scope& s, const gradient_op& op,
                    const std::vector<output>& g, std::vector<output>* in) {
    return split_grad(s, op, g, in, 1, op.inputs[0]);
  });
  r.add("SplitV", [](const scope& s, const gradient_op& op,
                     const std::vector<output>& g, std::vector<output>* in) {
    return split_grad(s, op, g, in, 0, op.inputs[2]);
  });
  r.add("Pack", [](const scope& s, const gradient_op& op,
                   const std::vector<output>& g, std::vector<output>* in) {
    auto parts = unstack(s, g[0], static_cast<int64_t>(op.inputs.size()),
                         op.attr_or("axis", int64_t{0}));
    for (size_t i = 0; i < parts.size() && i < in->size(); ++i)
      (*in)[i] = parts[i];
    return status::ok();
  });
  r.add("Unpack", [](const scope& s, const gradient_op& op,
                     const std::vector<output>& g, std::vector<output>* in) {
    (*in)[0] = stack(s, g, op.attr_or("axis", int64_t{0}));
    return status::ok();
  });
  r.add("Slice", [](const scope& s, const gradient_op& op,
                    const std::vector<output>& g, std::vector<output>* in) {
    // Padded back: begin before, shape(x) - begin - shape(y) after.
    const auto& x = op.inputs[0];
    const auto& begin = op.inputs[1];
    auto type = begin.dtype();
    auto after = sub(s, sub(s, shape_of(s, x, type), begin),
                     shape_of(s, op.outputs[0], type));
    auto paddings = stack(s, {begin, after}, 1);
    (*in)[0] = first(s.add_node("Pad", "Pad", {g[0], paddings},
                                {{"T", g[0].dtype()}, {"Tpaddings", type}}));
    return status::ok();
  });
  r.add("StridedSlice",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          const auto& x = op.inputs[0];
          auto index = op.inputs[1].dtype();
          auto attrs = op.node.attrs;
          attrs["T"] = g[0].dtype();
          attrs["Index"] = index;
          (*in)[0] = first(s.add_node("StridedSliceGrad", "StridedSliceGrad",
                                      {shape_of(s, x, index), op.inputs[1],
                                       op.inputs[2], op.inputs[3], g[0]},
                                      std::move(attrs)));
          return status::ok();
        });
  r.add("Pad", pad_grad);
  r.add("PadV2", pad_grad);
  r.add("Tile", [](const scope& s, const gradient_op& op,
                   const std::vector<output>& g, std::vector<output>* in) {
    // g viewed as [m0, d0, m1, d1, ...], summed over the m axes.
    const auto& x = op.inputs[0];
    std::vector<int64_t> multiples;
    if (!x.shape().fully_defined()
        || !constant_ints(s, op.inputs[1], &multiples))
      return needs_constant(op, "constant multiples and an input of known "
                                "shape");
    std::vector<int64_t> split, axes;
    for (size_t i = 0; i < multiples.size(); ++i) {
      axes.push_back(static_cast<int64_t>(2 * i));
      split.push_back(multiples[i]);
      split.push_back(x.shape().dim(static_cast<int>(i)));
    }
    (*in)[0] = reduce_sum(s, reshape(s, g[0], split), axes);
    return status::ok();
  });
  r.add("ReverseV2", [](const scope& s, const gradient_op& op,
                        const std::vector<output>& g, std::vector<output>* in) {
    (*in)[0] = typed(s, "ReverseV2", {g[0], op.inputs[1]},
                     {{"Tidx", op.inputs[1].dtype()}});
    return status::ok();
  });
  // Its own inverse, for the same lengths; the lengths get none.
  r.add("ReverseSequence",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          (*in)[0] = first(s.add_node("ReverseSequence", "ReverseSequence",
                                      {g[0], op.inputs[1]}, op.node.attrs));
          return status::ok();
        });
  r.add("Reverse", [](const scope& s, const gradient_op& op,
                      const std::vector<output>& g, std::vector<output>* in) {
    (*in)[0] = typed(s, "Reverse", {g[0], op.inputs[1]});
    return status::ok();
  });
  r.add("Fill", [](const scope& s, const gradient_op&,
                   const std::vector<output>& g, std::vector<output>* in) {
    auto r = g[0].shape().rank();
    if (r < 0)
      return core::unimplemented_error(
        "the gradient of Fill needs a result of known rank");
    std::vector<int64_t> all;
    for (int64_t i = 0; i < r; ++i)
      all.push_back(i);
    (*in)[1] = reduce_sum(s, g[0], all);
    return status::ok();
  });
  auto gather_grad = [](const scope& s, const gradient_op& op,
                        const std::vector<output>& g, std::vector<output>* in) {
    const auto& params = op.inputs[0];
    const auto& indices = op.inputs[1];
    int64_t axis = 0;
    if (op.inputs.size() == 3
        && !constant_axis(s, op.inputs[2], params.shape().rank(), &axis))
      return needs_constant(op, "a constant axis");
    if (axis != 0)
      return core::unimplemented_error("the gradient of ", op.node.op,
                                       " is built for axis 0");
    // The rows of g summed into the rows they were gathered from
    // (TensorFlow's IndexedSlices, made dense): repeated indices add up.
    auto flat_indices = reshape(s, indices, std::vector<int64_t>{-1});
    auto dims = shape_of(s, params);
    auto rows = strided_slice(s, dims, {0}, {1}, {1}, {0, 0, 0, 0, 1});
    auto row_shape = slice(s, dims, {1}, {-1});
    auto count = reshape(s, size(s, flat_indices), std::vector<int64_t>{1});
    auto flat = reshape(s, g[0], concat(s, {count, row_shape}, 0));
    auto summed = unsorted_segment_sum(s, flat, flat_indices, rows);
    (*in)[0] = params.shape().fully_defined()
                 ? reshape(s, summed, params.shape().dims())
                 : summed;
    return status::ok();
  };
  r.add("Gather", gather_grad);
  r.add("GatherV2", gather_grad);
}

} // namespace actorflow::graph::detail
