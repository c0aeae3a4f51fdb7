// Summary ops: their output is a serialized TensorFlow `Summary` protocol
// buffer (a scalar string), which a summary writer puts in a TensorBoard
// event file.

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

core::status scalar_output(shape_context& ctx) {
  ctx.set_output(0, core::shape{});
  return core::status::ok();
}

} // namespace

core::status register_summary_ops(op_registry& r) {
  // One simple value per (tag, value) pair: `tags` and `values` have the
  // same shape.
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(op_def_builder("ScalarSummary")
            .input("tags: string")
            .input("values: T")
            .output("summary: string")
            .attr("T: {float, double, int32, int64, uint8, int8, int16}")
            .shape_fn([](shape_context& ctx) {
              if (!ctx.input(0).compatible_with(ctx.input(1)))
                return core::invalid_argument_error(
                  "tags and values must have the same shape, got ",
                  ctx.input(0).to_string(), " and ", ctx.input(1).to_string());
              return scalar_output(ctx);
            })));
  // A histogram of every element of `values` under the scalar `tag`, in
  // TensorFlow's buckets; a NaN or infinity is an error.
  ACTORFLOW_RETURN_IF_ERROR(r.add(
    op_def_builder("HistogramSummary")
      .input("tag: string")
      .input("values: T")
      .output("summary: string")
      .attr("T: {float, double, int32, int64, uint8, int8, int16} = float")
      .shape_fn([](shape_context& ctx) {
        if (ctx.input(0).rank() > 0)
          return core::invalid_argument_error(
            "tag must be a scalar, got shape ", ctx.input(0).to_string());
        return scalar_output(ctx);
      })));
  // The values of several summaries in one; a tag in two of them is an
  // error.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("MergeSummary")
                                    .input("inputs: N * string")
                                    .output("summary: string")
                                    .attr("N: int")
                                    .shape_fn(scalar_output)));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
