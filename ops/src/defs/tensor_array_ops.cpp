// TensorArrays (TensorFlow's TensorArrayV3 family). TensorArrayV3 outputs
// a handle, a string scalar naming the array in the engine's resources for
// this step, and a flow: a float scalar whose only job is to order the
// operations on the array through data edges (each write takes the flow
// of the operation before it and outputs the next), so that a loop with
// many iterations in flight orders them as its dataflow says.

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

core::status scalar_outputs(shape_context& ctx) {
  for (size_t i = 0; i < ctx.outputs().size(); ++i)
    ctx.set_output(i, core::shape{});
  return core::status::ok();
}

/// The shape of `n` elements of shape `element` stacked (Gather), or
/// joined along their first dimension (Concat, `element` without it).
core::shape stacked(int64_t n, const core::shape& element) {
  if (!element.known_rank())
    return core::shape::unknown();
  auto dims = element.dims();
  dims.insert(dims.begin(), n);
  return core::shape{std::move(dims)};
}

op_def_builder ta_op(const char* name) {
  return op_def_builder(name).input("handle: string").stateful();
}

} // namespace

core::status register_tensor_array_ops(op_registry& r) {
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(op_def_builder("TensorArrayV3")
            .input("size: int32")
            .output("handle: string")
            .output("flow: float")
            .attr("dtype: type")
            .attr("element_shape: shape = ?")
            .attr("dynamic_size: bool = false")
            .attr("clear_after_read: bool = true")
            .attr("identical_element_shapes: bool = false")
            .attr("tensor_array_name: string = ''")
            .shape_fn(scalar_outputs)
            .stateful()));
  ACTORFLOW_RETURN_IF_ERROR(r.add(ta_op("TensorArrayGradV3")
                                    .input("flow_in: float")
                                    .output("grad_handle: string")
                                    .output("flow_out: float")
                                    .attr("source: string")
                                    .shape_fn(scalar_outputs)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(ta_op("TensorArrayGradWithShape")
                                    .input("flow_in: float")
                                    .input("shape_to_prepend: int32")
                                    .output("grad_handle: string")
                                    .output("flow_out: float")
                                    .attr("source: string")
                                    .shape_fn(scalar_outputs)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(ta_op("TensorArrayWriteV3")
                                    .input("index: int32")
                                    .input("value: T")
                                    .input("flow_in: float")
                                    .output("flow_out: float")
                                    .attr("T: type")
                                    .shape_fn(scalar_outputs)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(ta_op("TensorArrayReadV3")
                                    .input("index: int32")
                                    .input("flow_in: float")
                                    .output("value: dtype")
                                    .attr("dtype: type")));
  ACTORFLOW_RETURN_IF_ERROR(r.add(
    ta_op("TensorArrayGatherV3")
      .input("indices: int32")
      .input("flow_in: float")
      .output("value: dtype")
      .attr("dtype: type")
      .attr("element_shape: shape = ?")
      .shape_fn([](shape_context& ctx) {
        auto n = ctx.input(1).rank() == 1 ? ctx.input(1).dim(0) : -1;
        ctx.set_output(
          0, stacked(n, ctx.attr_or("element_shape", core::shape::unknown())));
        return core::status::ok();
      })));
  ACTORFLOW_RETURN_IF_ERROR(r.add(ta_op("TensorArrayScatterV3")
                                    .input("indices: int32")
                                    .input("value: T")
                                    .input("flow_in: float")
                                    .output("flow_out: float")
                                    .attr("T: type")
                                    .shape_fn(scalar_outputs)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(
    ta_op("TensorArrayConcatV3")
      .input("flow_in: float")
      .output("value: dtype")
      .output("lengths: int64")
      .attr("dtype: type")
      .attr("element_shape_except0: shape = ?")
      .shape_fn([](shape_context& ctx) {
        ctx.set_output(0, stacked(-1, ctx.attr_or("element_shape_except0",
                                                  core::shape::unknown())));
        ctx.set_output(1, core::shape{-1});
        return core::status::ok();
      })));
  ACTORFLOW_RETURN_IF_ERROR(r.add(ta_op("TensorArraySplitV3")
                                    .input("value: T")
                                    .input("lengths: int64")
                                    .input("flow_in: float")
                                    .output("flow_out: float")
                                    .attr("T: type")
                                    .shape_fn(scalar_outputs)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(ta_op("TensorArraySizeV3")
                                    .input("flow_in: float")
                                    .output("size: int32")
                                    .shape_fn(scalar_outputs)));
  return r.add(ta_op("TensorArrayCloseV3"));
}

} // namespace actorflow::ops::defs
