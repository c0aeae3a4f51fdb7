// Ops that index or broadcast over several dimensions at once, TensorFlow's:
// Where lists the coordinates of the true elements, GatherNd reads and
// ScatterNd / TensorScatterUpdate / TensorScatterAdd write slices named by
// such coordinates, BroadcastTo and SelectV2 broadcast as NumPy does.

#include "array_shape_fns.hpp"
#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

core::status where_fn(shape_context& ctx) {
  const auto& x = ctx.input(0);
  int64_t rows = -1;
  if (const auto* t = ctx.input_tensor(0); t != nullptr) {
    rows = 0;
    core::visit_dtype(t->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_arithmetic_v<T>)
        for (int64_t i = 0; i < t->num_elements(); ++i)
          rows += t->data<T>()[i] != T{0};
    });
  }
  ctx.set_output(0, x.known_rank() ? core::shape{{rows, int64_t{x.rank()}}}
                                   : core::shape{{rows, -1}});
  return core::status::ok();
}

core::status gather_nd_fn(shape_context& ctx) {
  const auto& params = ctx.input(0);
  const auto& indices = ctx.input(1);
  if (!params.known_rank() || !indices.known_rank() || indices.rank() == 0
      || indices.dim(indices.rank() - 1) < 0) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  auto depth = indices.dim(indices.rank() - 1);
  if (depth > params.rank())
    return core::invalid_argument_error("GatherNd's indices index ", depth,
                                        " dimensions of params of rank ",
                                        params.rank());
  std::vector<int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), params.dims().begin() + depth, params.dims().end());
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

core::status scatter_nd_fn(shape_context& ctx) {
  ctx.set_output(0, shape_from_input(ctx, 2));
  return core::status::ok();
}

core::status broadcast_to_fn(shape_context& ctx) {
  auto to = shape_from_input(ctx, 1);
  core::shape out;
  if (to.fully_defined() && ctx.input(0).known_rank()) {
    ACTORFLOW_RETURN_IF_ERROR(broadcast_shapes(ctx.input(0), to, &out));
    if (out != to)
      return core::invalid_argument_error(
        "cannot broadcast ", ctx.input(0).to_string(), " to ", to.to_string());
  }
  ctx.set_output(0, std::move(to));
  return core::status::ok();
}

core::status select_v2_fn(shape_context& ctx) {
  core::shape te;
  core::shape out;
  ACTORFLOW_RETURN_IF_ERROR(broadcast_shapes(ctx.input(1), ctx.input(2), &te));
  ACTORFLOW_RETURN_IF_ERROR(broadcast_shapes(ctx.input(0), te, &out));
  ctx.set_output(0, std::move(out));
  return core::status::ok();
}

} // namespace

core::status register_nd_ops(op_registry& r) {
  const char* index = "Tindices: {int32, int64}";
  // TensorFlow's choice for a coordinate out of range; only its default
  // (an error) is implemented.
  const char* policy = "bad_indices_policy: string = ''";
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(op_def_builder("Where")
            .input("input: T")
            .output("index: int64")
            .attr("T: {bool, float, double, int32, int64} = bool")
            .shape_fn(where_fn)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("GatherNd")
                                    .input("params: Tparams")
                                    .input("indices: Tindices")
                                    .output("output: Tparams")
                                    .attr("Tparams: type")
                                    .attr(index)
                                    .attr(policy)
                                    .shape_fn(gather_nd_fn)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("ScatterNd")
                                    .input("indices: Tindices")
                                    .input("updates: T")
                                    .input("shape: Tindices")
                                    .output("output: T")
                                    .attr("T: {float, double, int32, int64}")
                                    .attr(index)
                                    .attr(policy)
                                    .shape_fn(scatter_nd_fn)));
  for (const char* name : {"TensorScatterUpdate", "TensorScatterAdd"})
    ACTORFLOW_RETURN_IF_ERROR(
      r.add(op_def_builder(name)
              .input("tensor: T")
              .input("indices: Tindices")
              .input("updates: T")
              .output("output: T")
              .attr(name == std::string{"TensorScatterAdd"}
                      ? "T: {float, double, int32, int64}"
                      : "T: type")
              .attr(index)
              .attr(policy)
              .shape_fn(unchanged_shape)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("BroadcastTo")
                                    .input("input: T")
                                    .input("shape: Tidx")
                                    .output("output: T")
                                    .attr("T: type")
                                    .attr("Tidx: {int32, int64} = int32")
                                    .shape_fn(broadcast_to_fn)));
  return r.add(op_def_builder("SelectV2")
                 .input("condition: bool")
                 .input("t: T")
                 .input("e: T")
                 .output("output: T")
                 .attr("T: type")
                 .shape_fn(select_v2_fn));
}

} // namespace actorflow::ops::defs
