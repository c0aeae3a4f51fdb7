#include "grad_util.hpp"

#include <algorithm>

#include "../builder_state.hpp"
#include "../builder_util.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"

namespace actorflow::graph::detail {

const core::tensor* constant_value(const scope& s, const output& x) {
  const auto* node = s.graph_def().find(x.node_name());
  if (node == nullptr || node->op != "Const")
    return nullptr;
  auto it = node->attrs.find("value");
  return it == node->attrs.end() ? nullptr
                                 : std::get_if<core::tensor>(&it->second);
}

bool constant_ints(const scope& s, const output& x, std::vector<int64_t>* out) {
  const auto* t = constant_value(s, x);
  if (t == nullptr)
    return false;
  out->clear();
  auto n = t->num_elements();
  if (t->dtype() == core::dtype::int32)
    for (int64_t i = 0; i < n; ++i)
      out->push_back(t->data<int32_t>()[i]);
  else if (t->dtype() == core::dtype::int64)
    for (int64_t i = 0; i < n; ++i)
      out->push_back(t->data<int64_t>()[i]);
  else
    return false;
  return true;
}

output int32_vector(const scope& s, const std::vector<int64_t>& values) {
  return int_constant(s, "Const", values, false, core::dtype::int32);
}

output sum_over(const scope& s, const output& x, const output& axes,
                bool keep_dims) {
  return typed(s, "Sum", {x, axes},
               {{"keep_dims", keep_dims}, {"Tidx", axes.dtype()}});
}

core::status needs_constant(const gradient_op& op, const char* what) {
  return core::unimplemented_error("the gradient of ", op.node.name, " (",
                                   op.node.op, ") needs ", what);
}

output sum_to(const scope& s, const output& g, const output& x) {
  if (x.shape().fully_defined() && g.shape() == x.shape())
    return g;
  auto sx = shape_of(s, x);
  auto r = s.add_node("BroadcastGradientArgs", "BroadcastGradientArgs",
                      {sx, shape_of(s, g)}, {{"T", core::dtype::int32}});
  if (r.empty())
    return {};
  return reshape(s, sum_over(s, g, r[0]), sx);
}

core::status keep_reduced_dims(const scope& s, const gradient_op& op,
                               const output& g, output* kept,
                               output* kept_shape) {
  const auto& x = op.inputs[0];
  std::vector<int64_t> axes;
  if (!x.shape().known_rank() || !constant_ints(s, op.inputs[1], &axes))
    return core::unimplemented_error(
      "the gradient of a reduction needs constant axes and an input of known "
      "rank");
  auto r = x.shape().rank();
  std::vector<bool> reduced(static_cast<size_t>(r), false);
  for (auto a : axes) {
    if (a < -r || a >= r)
      return core::invalid_argument_error("reduction axis ", a,
                                          " is out of range for rank ", r);
    reduced[static_cast<size_t>(a < 0 ? a + r : a)] = true;
  }
  if (x.shape().fully_defined()) {
    std::vector<int64_t> dims;
    for (int i = 0; i < r; ++i)
      dims.push_back(reduced[static_cast<size_t>(i)] ? 1 : x.shape().dim(i));
    *kept_shape = int32_vector(s, dims);
  } else {
    // Where reduced 1, else x's dimension: shape(x) - shape(x)*m + m.
    std::vector<int64_t> m;
    for (int i = 0; i < r; ++i)
      m.push_back(reduced[static_cast<size_t>(i)] ? 1 : 0);
    auto mask = int32_vector(s, m);
    auto sx = shape_of(s, x);
    *kept_shape = add(s, sub(s, sx, mul(s, sx, mask)), mask);
  }
  *kept = reshape(s, g, *kept_shape);
  return core::status::ok();
}

output broadcast_back(const scope& s, const output& kept, const output& x,
                      const output& kept_shape) {
  if (x.shape().fully_defined() && kept.shape() == x.shape())
    return kept;
  output multiples;
  if (x.shape().fully_defined() && kept.shape().fully_defined()
      && kept.shape().rank() == x.shape().rank()) {
    // Known shapes: the multiples are a constant, not a Shape and a
    // FloorDiv computed (on the host) in every step.
    std::vector<int64_t> m;
    for (int i = 0; i < x.shape().rank(); ++i)
      m.push_back(x.shape().dim(i) / std::max<int64_t>(kept.shape().dim(i), 1));
    multiples = int32_vector(s, m);
  } else {
    multiples = floor_div(s, shape_of(s, x), kept_shape);
  }
  return typed(s, "Tile", {kept, multiples},
               {{"Tmultiples", core::dtype::int32}});
}

} // namespace actorflow::graph::detail
