#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

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
  return r.add(op_def_builder("NoOp"));
}

} // namespace actorflow::ops::defs
