// Ops that read and write data files: checkpoints, TensorFlow's tensor
// bundles, IDX and text files.

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// RestoreV2's and SaveV2's first inputs: a scalar prefix, then
/// tensor_names and shape_and_slices, vectors of a string per tensor (`n`).
core::status bundle_inputs(shape_context& ctx, int64_t n) {
  if (ctx.input(0).known_rank() && ctx.input(0).rank() != 0)
    return core::invalid_argument_error("prefix must be a scalar, got shape ",
                                        ctx.input(0).to_string());
  for (size_t i : {1, 2})
    if (!ctx.input(i).compatible_with(core::shape{n}))
      return core::invalid_argument_error(
        "input ", i, " must be a vector of ", n,
        " strings, one per tensor, got shape ", ctx.input(i).to_string());
  return core::status::ok();
}

} // namespace

core::status register_io_ops(op_registry& r) {
  // Writes `data` under `tensor_names` (a vector, one per tensor) to the
  // checkpoint file `filename`, atomically.
  ACTORFLOW_RETURN_IF_ERROR(r.add(
    op_def_builder("Save")
      .input("filename: string")
      .input("tensor_names: string")
      .input("data: T")
      .attr("T: list(type)")
      .shape_fn([](shape_context& ctx) {
        if (ctx.input(0).rank() > 0)
          return core::invalid_argument_error(
            "filename must be a scalar, got shape ", ctx.input(0).to_string());
        auto n = static_cast<int64_t>(ctx.num_inputs()) - 2;
        if (!ctx.input(1).compatible_with(core::shape{n}))
          return core::invalid_argument_error(
            "tensor_names must be a vector of ", n,
            " names, one per tensor, got shape ", ctx.input(1).to_string());
        return core::status::ok();
      })
      .stateful()));
  // The tensor named `tensor_name` of the checkpoint file `file_pattern`,
  // which must be of dtype `dt`.
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(op_def_builder("Restore")
            .input("file_pattern: string")
            .input("tensor_name: string")
            .output("tensor: dt")
            .attr("dt: type")
            .shape_fn([](shape_context& ctx) {
              for (size_t i = 0; i < 2; ++i)
                if (ctx.input(i).rank() > 0)
                  return core::invalid_argument_error(
                    "input ", i, " must be a scalar string, got shape ",
                    ctx.input(i).to_string());
              ctx.set_output(0, core::shape::unknown());
              return core::status::ok();
            })
            .stateful()));
  // The tensors under `tensor_names` of TensorFlow's tensor bundle at
  // `prefix` (`PREFIX.index` and its data shards), of `dtypes`: how
  // SavedModels restore their variables. Slices are not read: each
  // `shape_and_slices` entry must be empty.
  ACTORFLOW_RETURN_IF_ERROR(r.add(
    op_def_builder("RestoreV2")
      .input("prefix: string")
      .input("tensor_names: string")
      .input("shape_and_slices: string")
      .output("tensors: dtypes")
      .attr("dtypes: list(type)")
      .shape_fn([](shape_context& ctx) {
        return bundle_inputs(ctx, static_cast<int64_t>(ctx.outputs().size()));
      })
      .stateful()));
  // Writes `tensors` under `tensor_names` as TensorFlow's tensor bundle at
  // `prefix` (one shard): how SavedModels save their variables.
  ACTORFLOW_RETURN_IF_ERROR(r.add(
    op_def_builder("SaveV2")
      .input("prefix: string")
      .input("tensor_names: string")
      .input("shape_and_slices: string")
      .input("tensors: dtypes")
      .attr("dtypes: list(type)")
      .shape_fn([](shape_context& ctx) {
        return bundle_inputs(ctx, static_cast<int64_t>(ctx.num_inputs()) - 3);
      })
      .stateful()));
  // The bundles at `checkpoint_prefixes` as one at `destination_prefix`;
  // with delete_old_dirs their files (and emptied directories) go.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("MergeV2Checkpoints")
                                    .input("checkpoint_prefixes: string")
                                    .input("destination_prefix: string")
                                    .attr("delete_old_dirs: bool = true")
                                    .attr("allow_missing_files: bool = false")
                                    .stateful()));
  // Every line of a text file (gzip'd or not), without line ends.
  ACTORFLOW_RETURN_IF_ERROR(r.add(
    op_def_builder("ReadTextLines")
      .input("filename: string")
      .output("lines: string")
      .attr("skip_header_lines: int = 0")
      .shape_fn([](shape_context& ctx) {
        if (ctx.input(0).rank() > 0)
          return core::invalid_argument_error(
            "filename must be a scalar, got shape ", ctx.input(0).to_string());
        ctx.set_output(0, core::shape{-1});
        return core::status::ok();
      })
      .stateful()));
  // The whole of an IDX file (the MNIST format: a magic number naming the
  // element type and the rank, the dimensions, then big-endian elements),
  // gzip'd or not, as one tensor of its shape.
  return r.add(op_def_builder("ReadIdx")
                 .input("filename: string")
                 .output("output: dtype")
                 .attr("dtype: {uint8, int8, int16, int32, float, double}")
                 .shape_fn([](shape_context& ctx) {
                   if (ctx.input(0).rank() > 0)
                     return core::invalid_argument_error(
                       "filename must be a scalar, got shape ",
                       ctx.input(0).to_string());
                   ctx.set_output(0, core::shape::unknown());
                   return core::status::ok();
                 })
                 .stateful());
}

} // namespace actorflow::ops::defs
