// Resource variables (TensorFlow 2's): a handle names the variable, and
// reads and writes take the handle.

#include "array_shape_fns.hpp"
#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

constexpr const char* numeric_types
  = "{float16, bfloat16, float, double, int8, int16, int32, int64, uint8}";

core::status handle_input(shape_context& ctx) {
  if (ctx.input(0).known_rank() && ctx.input(0).rank() != 0)
    return core::invalid_argument_error("a variable handle is a scalar, got ",
                                        ctx.input(0).to_string());
  return core::status::ok();
}

} // namespace

core::status register_resource_variable_ops(op_registry& r) {
  // The handle of variable `shared_name` (the node's name if empty) of
  // `container`; the variable exists, uninitialised, from then on.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("VarHandleOp")
                                    .output("resource: string")
                                    .attr("container: string = ''")
                                    .attr("shared_name: string = ''")
                                    .attr("debug_name: string = ''")
                                    .attr("dtype: type")
                                    .attr("shape: shape")
                                    .attr("allowed_devices: list(string) = []")
                                    .shape_fn(scalar_shape)
                                    .stateful()));
  // A snapshot of the variable's value: later writes do not change it.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("ReadVariableOp")
                                    .input("resource: string")
                                    .output("value: dtype")
                                    .attr("dtype: type")
                                    .shape_fn(handle_input)
                                    .stateful()));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("AssignVariableOp")
                                    .input("resource: string")
                                    .input("value: dtype")
                                    .attr("dtype: type")
                                    .attr("validate_shape: bool = false")
                                    .shape_fn(handle_input)
                                    .stateful()));
  for (const char* name : {"AssignAddVariableOp", "AssignSubVariableOp"})
    ACTORFLOW_RETURN_IF_ERROR(
      r.add(op_def_builder(name)
              .input("resource: string")
              .input("value: dtype")
              .attr(std::string{"dtype: "} + numeric_types)
              .shape_fn(handle_input)
              .stateful()));
  // Rows of the variable's value (Keras' Embedding): GatherV2 on axis 0
  // of a snapshot.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("ResourceGather")
                                    .input("resource: string")
                                    .input("indices: Tindices")
                                    .output("output: dtype")
                                    .attr("batch_dims: int = 0")
                                    .attr("validate_indices: bool = true")
                                    .attr("dtype: type")
                                    .attr("Tindices: {int32, int64}")
                                    .stateful()));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("VarIsInitializedOp")
                                    .input("resource: string")
                                    .output("is_initialized: bool")
                                    .shape_fn(scalar_shape)
                                    .stateful()));
  // The shape of the variable's value (what tf.GradientTape writes for
  // the gradient of a variable read in a loop).
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("VariableShape")
                                    .input("input: string")
                                    .output("output: out_type")
                                    .attr("out_type: {int32, int64} = int32")
                                    .shape_fn([](shape_context& ctx) {
                                      ACTORFLOW_RETURN_IF_ERROR(
                                        handle_input(ctx));
                                      ctx.set_output(0, core::shape{{-1}});
                                      return core::status::ok();
                                    })
                                    .stateful()));
  // What TensorFlow's save functions call before reading a variable; the
  // engine's reads never copy, so it does nothing.
  return r.add(op_def_builder("DisableCopyOnRead")
                 .input("resource: string")
                 .shape_fn(handle_input)
                 .stateful());
}

} // namespace actorflow::ops::defs
