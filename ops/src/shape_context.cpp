#include "actorflow/ops/shape_context.hpp"

#include <algorithm>

namespace actorflow::ops {

shape_context::shape_context(const core::node_def& node,
                             std::vector<core::shape> inputs,
                             size_t num_outputs)
  : attr_reader(node.attrs), node_(node), inputs_(std::move(inputs)),
    outputs_(num_outputs, core::shape::unknown()) {
  // nop
}

void shape_context::set_input_tensor(size_t i, core::tensor value) {
  if (values_.size() < inputs_.size())
    values_.resize(inputs_.size());
  values_[i] = std::move(value);
}

bool shape_context::input_ints(size_t i, std::vector<int64_t>* out) const {
  const auto* t = input_tensor(i);
  if (t == nullptr || t->shape().rank() > 1)
    return false;
  out->clear();
  for (int64_t k = 0; k < t->num_elements(); ++k) {
    if (t->dtype() == core::dtype::int32)
      out->push_back(t->data<int32_t>()[k]);
    else if (t->dtype() == core::dtype::int64)
      out->push_back(t->data<int64_t>()[k]);
    else
      return false;
  }
  return true;
}

core::status unchanged_shape(shape_context& ctx) {
  for (size_t i = 0; i < ctx.outputs().size(); ++i)
    ctx.set_output(i, ctx.input(0));
  return core::status::ok();
}

core::status shape_from_attr(shape_context& ctx) {
  core::shape s;
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("shape", &s));
  ctx.set_output(0, std::move(s));
  return core::status::ok();
}

core::status broadcast_shapes(const core::shape& x, const core::shape& y,
                              core::shape* out) {
  if (!x.known_rank() || !y.known_rank()) {
    *out = core::shape::unknown();
    return core::status::ok();
  }
  auto rank = std::max(x.rank(), y.rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    auto xi = x.rank() - rank + i;
    auto yi = y.rank() - rank + i;
    int64_t a = xi >= 0 ? x.dim(xi) : 1;
    int64_t b = yi >= 0 ? y.dim(yi) : 1;
    int64_t d;
    if (a == 1)
      d = b;
    else if (b == 1)
      d = a;
    else if (a < 0)
      d = b;
    else if (b < 0)
      d = a;
    else if (a == b)
      d = a;
    else
      return core::invalid_argument_error("incompatible shapes for "
                                          "broadcasting: ",
                                          x.to_string(), " and ",
                                          y.to_string());
    dims[static_cast<size_t>(i)] = d;
  }
  *out = core::shape{std::move(dims)};
  return core::status::ok();
}

core::status reduced_shape(const core::shape& in,
                           const std::vector<int64_t>& axes, bool keep_dims,
                           core::shape* out, std::vector<bool>* reduced) {
  if (!in.known_rank()) {
    *out = core::shape::unknown();
    return core::status::ok();
  }
  int rank = in.rank();
  std::vector<bool> mask(static_cast<size_t>(rank), false);
  for (auto a : axes) {
    if (a < -rank || a >= rank)
      return core::invalid_argument_error("reduction axis ", a,
                                          " is out of range for a tensor of "
                                          "rank ",
                                          rank);
    mask[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d)
    if (!mask[static_cast<size_t>(d)])
      dims.push_back(in.dim(d));
    else if (keep_dims)
      dims.push_back(1);
  *out = core::shape{std::move(dims)};
  if (reduced != nullptr)
    *reduced = std::move(mask);
  return core::status::ok();
}

core::status broadcast_shape(shape_context& ctx) {
  core::shape out;
  ACTORFLOW_RETURN_IF_ERROR(broadcast_shapes(ctx.input(0), ctx.input(1), &out));
  ctx.set_output(0, std::move(out));
  return core::status::ok();
}

} // namespace actorflow::ops
