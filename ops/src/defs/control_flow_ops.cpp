#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

core::status switch_shape(shape_context& ctx) {
  const auto& pred = ctx.input(1);
  if (pred.known_rank() && pred.rank() != 0)
    return core::invalid_argument_error("Switch needs a scalar predicate, got ",
                                        pred.to_string());
  ctx.set_output(0, ctx.input(0));
  ctx.set_output(1, ctx.input(0));
  return core::status::ok();
}

/// Merge: the shape its inputs agree on (dimensions that differ unknown).
core::status merge_shape(shape_context& ctx) {
  auto s = ctx.input(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const auto& o = ctx.input(i);
    if (!s.known_rank() || !o.known_rank() || s.rank() != o.rank()) {
      s = core::shape::unknown();
      break;
    }
    auto dims = s.dims();
    for (int d = 0; d < s.rank(); ++d)
      if (dims[static_cast<size_t>(d)] != o.dim(d))
        dims[static_cast<size_t>(d)] = -1;
    s = core::shape{std::move(dims)};
  }
  ctx.set_output(0, std::move(s));
  ctx.set_output(1, core::shape{});
  return core::status::ok();
}

core::status loop_cond_shape(shape_context& ctx) {
  const auto& in = ctx.input(0);
  if (in.known_rank() && in.rank() != 0)
    return core::invalid_argument_error("LoopCond needs a scalar, got ",
                                        in.to_string());
  ctx.set_output(0, core::shape{});
  return core::status::ok();
}

} // namespace

// The control-flow primitives of TensorFlow v1 (semantics in
// docs/control-flow.md): the runtime gives them their meaning; their
// kernels only forward values.
core::status register_control_flow_ops(op_registry& r) {
  std::vector<op_def_builder> ops;
  ops.push_back(op_def_builder("Switch")
                  .input("data: T")
                  .input("pred: bool")
                  .output("output_false: T")
                  .output("output_true: T")
                  .attr("T: type")
                  .shape_fn(switch_shape));
  ops.push_back(op_def_builder("RefSwitch")
                  .input("data: Ref(T)")
                  .input("pred: bool")
                  .output("output_false: Ref(T)")
                  .output("output_true: Ref(T)")
                  .attr("T: type")
                  .shape_fn(switch_shape));
  ops.push_back(op_def_builder("Merge")
                  .input("inputs: N * T")
                  .output("output: T")
                  .output("value_index: int32")
                  .attr("T: type")
                  .attr("N: int")
                  .shape_fn(merge_shape));
  ops.push_back(op_def_builder("Enter")
                  .input("data: T")
                  .output("output: T")
                  .attr("T: type")
                  .attr("frame_name: string")
                  .attr("is_constant: bool = false")
                  .attr("parallel_iterations: int = 10")
                  .shape_fn(unchanged_shape));
  ops.push_back(op_def_builder("RefEnter")
                  .input("data: Ref(T)")
                  .output("output: Ref(T)")
                  .attr("T: type")
                  .attr("frame_name: string")
                  .attr("is_constant: bool = false")
                  .attr("parallel_iterations: int = 10")
                  .shape_fn(unchanged_shape));
  for (const char* name : {"Exit", "NextIteration"})
    ops.push_back(op_def_builder(name)
                    .input("data: T")
                    .output("output: T")
                    .attr("T: type")
                    .shape_fn(unchanged_shape));
  ops.push_back(op_def_builder("LoopCond")
                  .input("input: bool")
                  .output("output: bool")
                  .shape_fn(loop_cond_shape));
  ops.push_back(op_def_builder("ControlTrigger"));
  for (const auto& b : ops)
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
