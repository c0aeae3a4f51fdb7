// Queues (TensorFlow's data_flow_ops). A queue node outputs a handle: a
// string scalar naming the queue in the engine's resources, which the
// queue ops take as their first input.

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

core::status handle_shape(shape_context& ctx) {
  ctx.set_output(0, core::shape{});
  return core::status::ok();
}

/// The element shapes a dequeue declares (its `shapes` attr, an addition to
/// TensorFlow's ops), after `n` for a batched dequeue (unknown for
/// DequeueUpTo); unknown without them.
core::status dequeue_shape(shape_context& ctx, bool many, bool up_to) {
  auto shapes = ctx.attr_or("shapes", std::vector<core::shape>{});
  int64_t n = -1;
  std::vector<int64_t> v;
  if (many && !up_to && ctx.input_ints(1, &v) && v.size() == 1)
    n = v[0];
  for (size_t i = 0; i < ctx.outputs().size(); ++i) {
    if (i >= shapes.size() || !shapes[i].known_rank()) {
      ctx.set_output(i, core::shape::unknown());
      continue;
    }
    auto dims = shapes[i].dims();
    if (many)
      dims.insert(dims.begin(), n);
    ctx.set_output(i, core::shape{std::move(dims)});
  }
  return core::status::ok();
}

op_def_builder queue_op(const char* name) {
  return op_def_builder(name)
    .output("handle: string")
    .attr("component_types: list(type)")
    .attr("shapes: list(shape) = []")
    .attr("capacity: int = -1")
    .attr("container: string = ''")
    .attr("shared_name: string = ''")
    .shape_fn(handle_shape)
    .stateful();
}

op_def_builder dequeue_op(const char* name, bool many, bool up_to) {
  auto b = op_def_builder(name).input("handle: string");
  if (many)
    b.input("n: int32");
  return b.output("components: component_types")
    .attr("component_types: list(type)")
    .attr("shapes: list(shape) = []")
    .attr("timeout_ms: int = -1")
    .shape_fn([many, up_to](shape_context& ctx) {
      return dequeue_shape(ctx, many, up_to);
    })
    .stateful();
}

} // namespace

core::status register_data_flow_ops(op_registry& r) {
  ACTORFLOW_RETURN_IF_ERROR(r.add(queue_op("FIFOQueueV2")));
  ACTORFLOW_RETURN_IF_ERROR(r.add(queue_op("RandomShuffleQueueV2")
                                    .attr("min_after_dequeue: int = 0")
                                    .attr("seed: int = 0")
                                    .attr("seed2: int = 0")));
  for (const char* name : {"QueueEnqueueV2", "QueueEnqueueManyV2"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("handle: string")
                                      .input("components: Tcomponents")
                                      .attr("Tcomponents: list(type)")
                                      .attr("timeout_ms: int = -1")
                                      .stateful()));
  ACTORFLOW_RETURN_IF_ERROR(r.add(dequeue_op("QueueDequeueV2", false, false)));
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(dequeue_op("QueueDequeueManyV2", true, false)));
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(dequeue_op("QueueDequeueUpToV2", true, true)));
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(op_def_builder("QueueCloseV2")
            .input("handle: string")
            .attr("cancel_pending_enqueues: bool = false")
            .stateful()));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("QueueSizeV2")
                                    .input("handle: string")
                                    .output("size: int32")
                                    .shape_fn([](shape_context& ctx) {
                                      ctx.set_output(0, core::shape{});
                                      return core::status::ok();
                                    })
                                    .stateful()));
  // Stacks (TensorFlow's StackV2 family, with a string handle): a while
  // loop's gradient pushes forward values and pops them in reverse.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("StackV2")
                                    .input("max_size: int32")
                                    .output("handle: string")
                                    .attr("elem_type: type")
                                    .attr("stack_name: string = ''")
                                    .shape_fn(handle_shape)
                                    .stateful()));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("StackPushV2")
                                    .input("handle: string")
                                    .input("elem: T")
                                    .output("output: T")
                                    .attr("T: type")
                                    .attr("swap_memory: bool = false")
                                    .shape_fn([](shape_context& ctx) {
                                      ctx.set_output(0, ctx.input(1));
                                      return core::status::ok();
                                    })
                                    .stateful()));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("StackPopV2")
                                    .input("handle: string")
                                    .output("elem: elem_type")
                                    .attr("elem_type: type")
                                    .stateful()));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
