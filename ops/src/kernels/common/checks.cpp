#include "checks.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::common {

std::vector<int64_t> strides_of(const core::shape& s) {
  std::vector<int64_t> strides(static_cast<size_t>(s.rank()));
  int64_t stride = 1;
  for (int d = s.rank() - 1; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = stride;
    stride *= s.dim(d);
  }
  return strides;
}

std::vector<int64_t> read_ints(const core::tensor& t) {
  std::vector<int64_t> result;
  for (int64_t i = 0; i < t.num_elements(); ++i)
    result.push_back(t.dtype() == core::dtype::int32 ? t.data<int32_t>()[i]
                                                     : t.data<int64_t>()[i]);
  return result;
}

core::status read_scalar_string(const core::tensor& t, const char* what,
                                std::string* out) {
  if (t.dtype() != core::dtype::string || t.shape().rank() != 0)
    return core::invalid_argument_error(what, " must be a scalar string");
  *out = t.scalar_value<std::string>();
  return core::status::ok();
}

core::status read_scalar_int(const core::tensor& t, const char* what,
                             int64_t* out) {
  if (t.num_elements() != 1 || t.shape().rank() > 1)
    return core::invalid_argument_error(what, " must be a scalar, got shape ",
                                        t.shape().to_string());
  *out = read_ints(t)[0];
  return core::status::ok();
}

core::status canonical_axis(int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank)
    return core::invalid_argument_error("axis ", axis,
                                        " is out of range for a tensor of "
                                        "rank ",
                                        rank);
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return core::status::ok();
}

core::shape batch_of(const core::shape& s) {
  return core::shape{
    std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2)};
}

int64_t batch_offset(int64_t i, const core::shape& batch,
                     const core::shape& out_batch) {
  int64_t offset = 0, stride = 1;
  for (int d = out_batch.rank() - 1; d >= 0; --d) {
    auto index = i % out_batch.dim(d);
    i /= out_batch.dim(d);
    auto bd = d - (out_batch.rank() - batch.rank());
    if (bd < 0)
      continue;
    if (batch.dim(bd) != 1)
      offset += index * stride;
    stride *= batch.dim(bd);
  }
  return offset;
}

core::status plan_batch_product(const core::shape& x, const core::shape& y,
                                bool adj_x, bool adj_y, batch_product* out) {
  if (x.rank() < 2 || y.rank() < 2)
    return core::invalid_argument_error("BatchMatMul needs rank >= 2, got ",
                                        x.to_string(), " and ", y.to_string());
  batch_product p;
  p.m = x.dim(x.rank() - (adj_x ? 1 : 2));
  p.k = x.dim(x.rank() - (adj_x ? 2 : 1));
  p.n = y.dim(y.rank() - (adj_y ? 2 : 1));
  if (p.k != y.dim(y.rank() - (adj_y ? 1 : 2)))
    return core::invalid_argument_error(
      "BatchMatMul inner dimensions differ: ", x.to_string(), " times ",
      y.to_string());
  p.x_batch = batch_of(x);
  p.y_batch = batch_of(y);
  ACTORFLOW_RETURN_IF_ERROR(broadcast_shapes(p.x_batch, p.y_batch, &p.batch));
  auto dims = p.batch.dims();
  dims.push_back(p.m);
  dims.push_back(p.n);
  p.out = core::shape{std::move(dims)};
  *out = std::move(p);
  return core::status::ok();
}

core::status batch_norm_outputs(kernel_context& ctx, bool training,
                                std::vector<core::tensor*>* outs,
                                int64_t* channels, int64_t* rows,
                                int channel_axis) {
  const auto& x = ctx.input(0);
  if (x.shape().rank() != 4)
    return core::invalid_argument_error(
      "FusedBatchNorm needs a rank-4 input (NHWC or NCHW), got ",
      x.shape().to_string());
  auto c = x.shape().dim(channel_axis);
  for (size_t i = 1; i < 5; ++i) {
    bool empty_ok = training && i >= 3 && ctx.input(i).num_elements() == 0;
    if (!empty_ok && ctx.input(i).shape() != core::shape{c})
      return core::invalid_argument_error("FusedBatchNorm input ", i,
                                          " must be [", c, "], got ",
                                          ctx.input(i).shape().to_string());
  }
  outs->assign(ctx.outputs().size(), nullptr);
  ACTORFLOW_RETURN_IF_ERROR(ctx.allocate_output(0, x.shape(), &(*outs)[0]));
  for (size_t i = 1; i < 5; ++i)
    ACTORFLOW_RETURN_IF_ERROR(ctx.allocate_output(i, {c}, &(*outs)[i]));
  if (ctx.outputs().size() == 6) // FusedBatchNormV3's reserve_space_3
    ACTORFLOW_RETURN_IF_ERROR(ctx.allocate_output(5, {0}, &(*outs)[5]));
  *channels = c;
  *rows = c == 0 ? 0 : x.num_elements() / c;
  return core::status::ok();
}

core::status batch_norm_grad_outputs(kernel_context& ctx,
                                     std::vector<core::tensor*>* outs,
                                     int64_t* channels, int64_t* rows,
                                     int channel_axis) {
  const auto& dy = ctx.input(0);
  const auto& x = ctx.input(1);
  if (x.shape().rank() != 4 || dy.shape() != x.shape())
    return core::invalid_argument_error(
      "FusedBatchNormGrad needs y_backprop and x of one rank-4 shape, got ",
      dy.shape().to_string(), " and ", x.shape().to_string());
  auto c = x.shape().dim(channel_axis);
  for (size_t i = 2; i < 5; ++i)
    if (ctx.input(i).shape() != core::shape{c})
      return core::invalid_argument_error("FusedBatchNormGrad input ", i,
                                          " must be [", c, "], got ",
                                          ctx.input(i).shape().to_string());
  outs->assign(5, nullptr);
  ACTORFLOW_RETURN_IF_ERROR(ctx.allocate_output(0, x.shape(), &(*outs)[0]));
  for (size_t i = 1; i < 3; ++i)
    ACTORFLOW_RETURN_IF_ERROR(ctx.allocate_output(i, {c}, &(*outs)[i]));
  for (size_t i = 3; i < 5; ++i)
    ACTORFLOW_RETURN_IF_ERROR(ctx.allocate_output(i, {0}, &(*outs)[i]));
  *channels = c;
  *rows = c == 0 ? 0 : x.num_elements() / c;
  return core::status::ok();
}

} // namespace actorflow::ops::common
