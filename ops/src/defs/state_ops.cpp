#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

core::status assign_shape(shape_context& ctx) {
  bool validate = ctx.attr_or("validate_shape", true);
  if (validate && !ctx.input(0).compatible_with(ctx.input(1)))
    return core::invalid_argument_error(
      "cannot assign a value of shape ", ctx.input(1).to_string(),
      " to a variable of shape ", ctx.input(0).to_string());
  ctx.set_output(0, validate ? ctx.input(0).merge(ctx.input(1)) : ctx.input(1));
  return core::status::ok();
}

core::status update_shape(shape_context& ctx) {
  if (!ctx.input(0).compatible_with(ctx.input(1)))
    return core::invalid_argument_error(
      "cannot update a variable of shape ", ctx.input(0).to_string(),
      " with a value of shape ", ctx.input(1).to_string());
  ctx.set_output(0, ctx.input(0).merge(ctx.input(1)));
  return core::status::ok();
}

} // namespace

core::status register_state_ops(op_registry& r) {
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("VariableV2")
                                    .output("ref: Ref(dtype)")
                                    .attr("shape: shape")
                                    .attr("dtype: type")
                                    .attr("container: string = ''")
                                    .attr("shared_name: string = ''")
                                    .shape_fn(shape_from_attr)
                                    .stateful()));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Assign")
                                    .input("ref: Ref(T)")
                                    .input("value: T")
                                    .output("output_ref: Ref(T)")
                                    .attr("T: type")
                                    .attr("validate_shape: bool = true")
                                    .attr("use_locking: bool = true")
                                    .shape_fn(assign_shape)
                                    .stateful()));
  for (const char* name : {"AssignAdd", "AssignSub"})
    ACTORFLOW_RETURN_IF_ERROR(
      r.add(op_def_builder(name)
              .input("ref: Ref(T)")
              .input("value: T")
              .output("output_ref: Ref(T)")
              .attr("T: {float16, bfloat16, float, double, int32, int64}")
              .attr("use_locking: bool = false")
              .shape_fn(update_shape)
              .stateful()));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
