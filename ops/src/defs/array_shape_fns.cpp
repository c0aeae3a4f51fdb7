#include "array_shape_fns.hpp"

#include <cmath>

#include "actorflow/ops/array_shapes.hpp"

namespace actorflow::ops::defs {

namespace {

/// A shape of `rank` unknown dimensions, or unknown rank if `rank` < 0.
core::shape unknown_dims(int rank) {
  if (rank < 0)
    return core::shape::unknown();
  return core::shape{std::vector<int64_t>(static_cast<size_t>(rank), -1)};
}

} // namespace

core::shape shape_from_input(const shape_context& ctx, size_t i) {
  std::vector<int64_t> dims;
  if (ctx.input_ints(i, &dims))
    return core::shape{std::move(dims)};
  const auto& s = ctx.input(i);
  return unknown_dims(s.known_rank() && s.rank() == 1 ? int(s.dim(0)) : -1);
}

core::status fill_shape(shape_context& ctx) {
  ctx.set_output(0, shape_from_input(ctx, 0));
  return core::status::ok();
}

core::status vector_of_rank_shape(shape_context& ctx) {
  // Shape, or ShapeN: a vector of each input's rank.
  for (size_t i = 0; i < ctx.outputs().size(); ++i) {
    const auto& in = ctx.input(i);
    ctx.set_output(i, core::shape{in.known_rank() ? in.rank() : -1});
  }
  return core::status::ok();
}

core::status scalar_shape(shape_context& ctx) {
  ctx.set_output(0, core::shape{});
  return core::status::ok();
}

core::status reshape_fn(shape_context& ctx) {
  std::vector<int64_t> dims;
  if (!ctx.input_ints(1, &dims)) {
    ctx.set_output(0, shape_from_input(ctx, 1));
    return core::status::ok();
  }
  core::shape out;
  ACTORFLOW_RETURN_IF_ERROR(reshape_shape(ctx.input(0), dims, &out));
  ctx.set_output(0, std::move(out));
  return core::status::ok();
}

core::status expand_dims_fn(shape_context& ctx) {
  const auto& in = ctx.input(0);
  std::vector<int64_t> dim;
  if (!in.known_rank()) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  if (!ctx.input_ints(1, &dim) || dim.size() != 1) {
    ctx.set_output(0, unknown_dims(in.rank() + 1));
    return core::status::ok();
  }
  auto rank = in.rank() + 1;
  auto d = dim[0];
  if (d < -rank || d >= rank)
    return core::invalid_argument_error("ExpandDims axis ", d,
                                        " is out of range for rank ", rank);
  auto dims = in.dims();
  dims.insert(dims.begin() + (d < 0 ? d + rank : d), 1);
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

core::status squeeze_fn(shape_context& ctx) {
  const auto& in = ctx.input(0);
  auto axes = ctx.attr_or("squeeze_dims", std::vector<int64_t>{});
  if (!in.known_rank()) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  int rank = in.rank();
  std::vector<bool> named(static_cast<size_t>(rank), false);
  for (auto a : axes) {
    if (a < -rank || a >= rank)
      return core::invalid_argument_error("Squeeze axis ", a,
                                          " is out of range for rank ", rank);
    named[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    auto size = in.dim(d);
    bool squeeze = axes.empty() ? size == 1 : named[static_cast<size_t>(d)];
    if (!axes.empty() && squeeze && size > 1)
      return core::invalid_argument_error("cannot squeeze dimension ", d,
                                          " of ", in.to_string());
    if (axes.empty() && size < 0) { // might be 1: the rank is unknown
      ctx.set_output(0, core::shape::unknown());
      return core::status::ok();
    }
    if (!squeeze)
      dims.push_back(size);
  }
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

core::status transpose_fn(shape_context& ctx) {
  std::vector<int64_t> perm;
  core::shape out;
  if (ctx.input_ints(1, &perm))
    ACTORFLOW_RETURN_IF_ERROR(transpose_shape(ctx.input(0), perm, &out));
  else
    out = unknown_dims(ctx.input(0).rank());
  ctx.set_output(0, std::move(out));
  return core::status::ok();
}

core::status concat_fn(shape_context& ctx, size_t first, size_t count,
                       size_t axis_input) {
  std::vector<core::shape> in;
  int rank = -1;
  for (size_t i = first; i < first + count; ++i) {
    in.push_back(ctx.input(i));
    if (ctx.input(i).known_rank())
      rank = ctx.input(i).rank();
  }
  std::vector<int64_t> axis;
  if (!ctx.input_ints(axis_input, &axis) || axis.size() != 1) {
    ctx.set_output(0, unknown_dims(rank));
    return core::status::ok();
  }
  core::shape out;
  ACTORFLOW_RETURN_IF_ERROR(concat_shape(in, axis[0], &out));
  ctx.set_output(0, std::move(out));
  return core::status::ok();
}

core::status concat_v2_fn(shape_context& ctx) {
  auto n = ctx.num_inputs() - 1;
  return concat_fn(ctx, 0, n, n);
}

core::status concat_v1_fn(shape_context& ctx) {
  return concat_fn(ctx, 1, ctx.num_inputs() - 1, 0);
}

core::status split_fn(shape_context& ctx, size_t value, size_t axis_input,
                      const std::vector<int64_t>* sizes) {
  const auto& in = ctx.input(value);
  auto n = ctx.outputs().size();
  std::vector<int64_t> axis;
  if (!in.known_rank() || !ctx.input_ints(axis_input, &axis)
      || axis.size() != 1) {
    for (size_t i = 0; i < n; ++i)
      ctx.set_output(i, unknown_dims(in.rank()));
    return core::status::ok();
  }
  int rank = in.rank();
  if (axis[0] < -rank || axis[0] >= rank)
    return core::invalid_argument_error("split axis ", axis[0],
                                        " is out of range for rank ", rank);
  auto a = static_cast<int>(axis[0] < 0 ? axis[0] + rank : axis[0]);
  auto size = in.dim(a);
  if (sizes == nullptr && size >= 0 && size % static_cast<int64_t>(n) != 0)
    return core::invalid_argument_error("cannot split dimension ", a,
                                        " of size ", size, " into ", n,
                                        " equal parts");
  for (size_t i = 0; i < n; ++i) {
    auto dims = in.dims();
    if (sizes == nullptr)
      dims[static_cast<size_t>(a)]
        = size < 0 ? -1 : size / static_cast<int64_t>(n);
    else
      dims[static_cast<size_t>(a)] = (*sizes)[i];
    ctx.set_output(i, core::shape{std::move(dims)});
  }
  return core::status::ok();
}

core::status split_v1_fn(shape_context& ctx) {
  return split_fn(ctx, 1, 0, nullptr);
}

core::status split_v_fn(shape_context& ctx) {
  std::vector<int64_t> sizes;
  if (!ctx.input_ints(1, &sizes) || sizes.size() != ctx.outputs().size()
      || !ctx.input(0).known_rank()) {
    // Sizes known only when it runs: not equal parts, any parts.
    std::vector<int64_t> unknown(ctx.outputs().size(), -1);
    return split_fn(ctx, 0, 2, &unknown);
  }
  // Resolve one -1 when the split dimension is known.
  std::vector<int64_t> axis;
  if (ctx.input_ints(2, &axis) && axis.size() == 1) {
    int rank = ctx.input(0).rank();
    if (axis[0] >= -rank && axis[0] < rank) {
      auto size = ctx.input(0).dim(
        static_cast<int>(axis[0] < 0 ? axis[0] + rank : axis[0]));
      int64_t known = 0;
      int open = -1;
      for (size_t i = 0; i < sizes.size(); ++i)
        if (sizes[i] < 0)
          open = static_cast<int>(i);
        else
          known += sizes[i];
      if (open >= 0 && size >= 0)
        sizes[static_cast<size_t>(open)] = size - known;
    }
  }
  return split_fn(ctx, 0, 2, &sizes);
}

core::status pack_fn(shape_context& ctx) {
  auto axis = ctx.attr_or("axis", int64_t{0});
  core::shape s = ctx.input(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (!s.compatible_with(ctx.input(i)))
      return core::invalid_argument_error(
        "Pack needs inputs of one shape; input 0 is ", s.to_string(),
        ", input ", i, " is ", ctx.input(i).to_string());
    s = s.merge(ctx.input(i));
  }
  if (!s.known_rank()) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  int rank = s.rank() + 1;
  if (axis < -rank || axis >= rank)
    return core::invalid_argument_error("Pack axis ", axis,
                                        " is out of range for rank ", rank);
  auto dims = s.dims();
  dims.insert(dims.begin() + (axis < 0 ? axis + rank : axis),
              static_cast<int64_t>(ctx.num_inputs()));
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

core::status unpack_fn(shape_context& ctx) {
  const auto& in = ctx.input(0);
  auto axis = ctx.attr_or("axis", int64_t{0});
  auto n = ctx.outputs().size();
  core::shape out = core::shape::unknown();
  if (in.known_rank()) {
    int rank = in.rank();
    if (axis < -rank || axis >= rank)
      return core::invalid_argument_error("Unpack axis ", axis,
                                          " is out of range for rank ", rank);
    auto a = axis < 0 ? axis + rank : axis;
    auto dims = in.dims();
    if (dims[static_cast<size_t>(a)] >= 0
        && dims[static_cast<size_t>(a)] != static_cast<int64_t>(n))
      return core::invalid_argument_error("cannot unpack dimension ", a, " of ",
                                          in.to_string(), " into ", n,
                                          " tensors");
    dims.erase(dims.begin() + a);
    out = core::shape{std::move(dims)};
  }
  for (size_t i = 0; i < n; ++i)
    ctx.set_output(i, out);
  return core::status::ok();
}

core::status slice_fn(shape_context& ctx) {
  const auto& in = ctx.input(0);
  std::vector<int64_t> begin, size;
  if (!ctx.input_ints(1, &begin) || !ctx.input_ints(2, &size)) {
    ctx.set_output(0, unknown_dims(in.rank()));
    return core::status::ok();
  }
  if (begin.size() != size.size()
      || (in.known_rank() && begin.size() != static_cast<size_t>(in.rank())))
    return core::invalid_argument_error(
      "Slice needs begin and size with one entry per dimension of ",
      in.to_string());
  std::vector<int64_t> dims;
  for (size_t i = 0; i < size.size(); ++i) {
    auto d = in.known_rank() ? in.dim(static_cast<int>(i)) : int64_t{-1};
    if (size[i] == -1)
      dims.push_back(d < 0 ? -1 : d - begin[i]);
    else
      dims.push_back(size[i]);
    if (d >= 0
        && (begin[i] < 0 || dims.back() < 0 || begin[i] + dims.back() > d))
      return core::invalid_argument_error("Slice of dimension ", i, " (size ",
                                          d, ") from ", begin[i], " of size ",
                                          size[i], " is out of range");
  }
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

/// For each output dimension of a StridedSlice of a rank-`rank` input, the
/// input dimension it comes from (-1: a new axis of 1).
std::vector<int> strided_slice_sources(int rank, size_t n,
                                       const strided_slice_masks& masks) {
  int consumed = 0;
  for (size_t i = 0; i < n; ++i)
    if (!((masks.new_axis >> i) & 1) && !((masks.ellipsis >> i) & 1))
      ++consumed;
  std::vector<int> out;
  int d = 0;
  for (size_t i = 0; i < n; ++i) {
    if ((masks.ellipsis >> i) & 1) {
      for (int k = 0; k < rank - consumed; ++k)
        out.push_back(d++);
    } else if ((masks.new_axis >> i) & 1) {
      out.push_back(-1);
    } else if ((masks.shrink_axis >> i) & 1) {
      ++d;
    } else {
      out.push_back(d++);
    }
  }
  while (d < rank)
    out.push_back(d++);
  return out;
}

core::status strided_slice_fn(shape_context& ctx) {
  const auto& in = ctx.input(0);
  std::vector<int64_t> begin, end, strides;
  if (!in.known_rank() || !ctx.input_ints(1, &begin) || !ctx.input_ints(2, &end)
      || !ctx.input_ints(3, &strides)) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  strided_slice_masks masks{ctx.attr_or("begin_mask", int64_t{0}),
                            ctx.attr_or("end_mask", int64_t{0}),
                            ctx.attr_or("ellipsis_mask", int64_t{0}),
                            ctx.attr_or("new_axis_mask", int64_t{0}),
                            ctx.attr_or("shrink_axis_mask", int64_t{0})};
  // Unknown dimensions are planned as very large ones (an index into one
  // is then in range); what comes out of them is unknown, as in
  // TensorFlow's inference.
  constexpr int64_t unknown_size = int64_t{1} << 40;
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i)
    dims.push_back(in.dim(i) < 0 ? unknown_size : in.dim(i));
  strided_slice_plan plan;
  ACTORFLOW_RETURN_IF_ERROR(
    plan_strided_slice(core::shape{dims}, begin, end, strides, masks, &plan));
  if (in.fully_defined()) {
    ctx.set_output(0, plan.out);
    return core::status::ok();
  }
  auto sources = strided_slice_sources(in.rank(), begin.size(), masks);
  std::vector<int64_t> out;
  for (int i = 0; i < plan.out.rank(); ++i) {
    auto from = static_cast<size_t>(i) < sources.size()
                  ? sources[static_cast<size_t>(i)]
                  : -1;
    out.push_back(from >= 0 && in.dim(from) < 0 ? -1 : plan.out.dim(i));
  }
  ctx.set_output(0, core::shape{std::move(out)});
  return core::status::ok();
}

core::status gather_fn(shape_context& ctx) {
  const auto& params = ctx.input(0);
  const auto& indices = ctx.input(1);
  std::vector<int64_t> axis{0};
  if (ctx.num_inputs() == 3 && !ctx.input_ints(2, &axis))
    axis.clear();
  if (!params.known_rank() || !indices.known_rank() || axis.size() != 1) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  int rank = params.rank();
  if (axis[0] < -rank || axis[0] >= rank)
    return core::invalid_argument_error("Gather axis ", axis[0],
                                        " is out of range for rank ", rank);
  auto a = axis[0] < 0 ? axis[0] + rank : axis[0];
  std::vector<int64_t> dims(params.dims().begin(), params.dims().begin() + a);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + a + 1, params.dims().end());
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

core::status tile_fn(shape_context& ctx) {
  const auto& in = ctx.input(0);
  std::vector<int64_t> multiples;
  if (!ctx.input_ints(1, &multiples)) {
    ctx.set_output(0, unknown_dims(in.rank()));
    return core::status::ok();
  }
  if (in.known_rank() && multiples.size() != static_cast<size_t>(in.rank()))
    return core::invalid_argument_error("Tile needs one multiple per "
                                        "dimension of ",
                                        in.to_string(), ", got ",
                                        multiples.size());
  std::vector<int64_t> dims;
  for (size_t i = 0; i < multiples.size(); ++i) {
    auto d = in.known_rank() ? in.dim(static_cast<int>(i)) : int64_t{-1};
    dims.push_back(d < 0 ? -1 : d * multiples[i]);
  }
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

core::status pad_fn(shape_context& ctx) {
  const auto& in = ctx.input(0);
  const auto* p = ctx.input_tensor(1);
  if (p == nullptr || p->shape().rank() != 2) {
    ctx.set_output(0, unknown_dims(in.rank()));
    return core::status::ok();
  }
  auto n = p->shape().dim(0);
  if (p->shape().dim(1) != 2 || (in.known_rank() && n != in.rank()))
    return core::invalid_argument_error("Pad needs paddings of shape [",
                                        in.rank(), ",2], got ",
                                        p->shape().to_string());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < n; ++i) {
    auto lo = p->dtype() == core::dtype::int32 ? p->data<int32_t>()[2 * i]
                                               : p->data<int64_t>()[2 * i];
    auto hi = p->dtype() == core::dtype::int32 ? p->data<int32_t>()[2 * i + 1]
                                               : p->data<int64_t>()[2 * i + 1];
    if (lo < 0 || hi < 0)
      return core::invalid_argument_error("Pad needs non-negative paddings");
    auto d = in.known_rank() ? in.dim(static_cast<int>(i)) : int64_t{-1};
    dims.push_back(d < 0 ? -1 : d + lo + hi);
  }
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

core::status one_hot_fn(shape_context& ctx) {
  const auto& in = ctx.input(0);
  auto axis = ctx.attr_or("axis", int64_t{-1});
  std::vector<int64_t> depth;
  if (!in.known_rank()) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  if (axis < -1 || axis > in.rank())
    return core::invalid_argument_error(
      "OneHot axis ", axis, " is out of range for indices of rank ", in.rank());
  auto dims = in.dims();
  int64_t d = ctx.input_ints(1, &depth) && depth.size() == 1 ? depth[0] : -1;
  dims.insert(axis < 0 ? dims.end() : dims.begin() + axis, d);
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

core::status range_fn(shape_context& ctx) {
  for (size_t i = 0; i < 3; ++i)
    if (ctx.input(i).known_rank() && ctx.input(i).rank() != 0)
      return core::invalid_argument_error("Range needs scalar inputs, input ",
                                          i, " is ", ctx.input(i).to_string());
  // The length depends on the values, which may be floats.
  ctx.set_output(0, core::shape{-1});
  const auto *s = ctx.input_tensor(0), *l = ctx.input_tensor(1),
             *d = ctx.input_tensor(2);
  if (s == nullptr || l == nullptr || d == nullptr)
    return core::status::ok();
  auto value = [](const core::tensor& t) {
    double v = 0;
    core::visit_dtype(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_arithmetic_v<T>)
        v = static_cast<double>(t.data<T>()[0]);
    });
    return v;
  };
  auto start = value(*s), limit = value(*l), delta = value(*d);
  if (delta == 0 || (delta > 0 && start > limit)
      || (delta < 0 && start < limit))
    return core::invalid_argument_error("Range from ", start, " to ", limit,
                                        " by ", delta, " is empty or endless");
  ctx.set_output(
    0, core::shape{static_cast<int64_t>(std::ceil((limit - start) / delta))});
  return core::status::ok();
}

} // namespace actorflow::ops::defs
