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

core::status select_shape(shape_context& ctx) {
  const auto& c = ctx.input(0);
  if (!ctx.input(1).compatible_with(ctx.input(2)))
    return core::invalid_argument_error(
      "Select needs t and e of one shape, got ", ctx.input(1).to_string(),
      " and ", ctx.input(2).to_string());
  auto s = ctx.input(1).merge(ctx.input(2));
  if (c.known_rank() && c.rank() != 0 && !c.compatible_with(s))
    return core::invalid_argument_error(
      "Select needs a scalar condition or one of shape ", s.to_string(),
      ", got ", c.to_string());
  ctx.set_output(0, std::move(s));
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
  // Cast between the real dtypes and bool; float to integer truncates
  // toward zero, anything nonzero becomes true.
  const char* castable = "{bool, int8, int16, int32, int64, uint8, uint16, "
                         "uint32, uint64, float16, bfloat16, float, double}";
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Cast")
                                    .input("x: SrcT")
                                    .output("y: DstT")
                                    .attr(std::string{"SrcT: "} + castable)
                                    .attr(std::string{"DstT: "} + castable)
                                    .shape_fn(unchanged_shape)));
  // Select (where): condition ? t : e, element-wise; the condition has the
  // shape of t and e, or is a scalar.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Select")
                                    .input("condition: bool")
                                    .input("t: T")
                                    .input("e: T")
                                    .output("output: T")
                                    .attr("T: type")
                                    .shape_fn(select_shape)));
  return r.add(op_def_builder("NoOp"));
}

} // namespace actorflow::ops::defs
