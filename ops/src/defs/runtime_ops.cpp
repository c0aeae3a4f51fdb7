#include "defs.hpp"

#include "actorflow/ops/registration.hpp"
#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

core::status feed_shape(shape_context& ctx) {
  ctx.set_output(0, ctx.attr_or("shape", core::shape::unknown()));
  return core::status::ok();
}

core::status same_shape(shape_context& ctx) {
  ctx.set_output(0, ctx.input(0));
  return core::status::ok();
}

} // namespace

core::status register_runtime_ops(op_registry& r) {
  // Feeds and fetches are the client's endpoints in a compiled graph.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(runtime_op::feed)
                                    .output("output: T")
                                    .attr("T: type")
                                    .attr("index: int")
                                    .attr("shape: shape = ?")
                                    .shape_fn(feed_shape)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(runtime_op::fetch)
                                    .input("input: T")
                                    .attr("T: type")
                                    .attr("index: int")));
  // A cross-device edge: one Send per tensor and destination device, one
  // Recv on that device. tensor_name identifies the edge.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(runtime_op::send)
                                    .input("tensor: T")
                                    .attr("T: type")
                                    .attr("tensor_name: string")
                                    .attr("send_device: string")
                                    .attr("recv_device: string")));
  // Copies between a GPU's memory and the host's inside a GPU partition,
  // where a host-memory value meets a device-memory input or the other way
  // round (graph::insert_memory_copies puts them there).
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(runtime_op::host_to_device)
                                    .input("input: T")
                                    .output("output: T")
                                    .attr("T: type")
                                    .shape_fn(same_shape)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(runtime_op::device_to_host)
                                    .input("input: T")
                                    .output("output: T")
                                    .attr("T: type")
                                    .shape_fn(same_shape)));
  return r.add(op_def_builder(runtime_op::recv)
                 .output("tensor: T")
                 .attr("T: type")
                 .attr("tensor_name: string")
                 .attr("send_device: string")
                 .attr("recv_device: string"));
}

} // namespace actorflow::ops::defs
