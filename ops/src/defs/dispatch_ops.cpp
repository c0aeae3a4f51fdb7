// Dispatch and segment ops, TensorFlow's: DynamicPartition sends the rows
// of a tensor to the output its partition number names, DynamicStitch puts
// rows back together by index, and the segment reductions fold the rows of
// each segment -- what a mixture of experts dispatches and combines with.

#include <algorithm>

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// [rows] + `s` without its first `skip` dimensions (unknown where `s`'s
/// rank is).
core::shape rows_of(int64_t rows, const core::shape& s, int skip) {
  if (!s.known_rank() || s.rank() < skip)
    return core::shape::unknown();
  std::vector<int64_t> dims{rows};
  dims.insert(dims.end(), s.dims().begin() + skip, s.dims().end());
  return core::shape{std::move(dims)};
}

/// The elements of int32 input `i` of any shape when it is known.
bool known_int32s(const shape_context& ctx, size_t i,
                  std::vector<int64_t>* out) {
  const auto* t = ctx.input_tensor(i);
  if (t == nullptr || t->dtype() != core::dtype::int32)
    return false;
  out->assign(t->data<int32_t>(), t->data<int32_t>() + t->num_elements());
  return true;
}

core::status dynamic_partition_fn(shape_context& ctx) {
  const auto& partitions = ctx.input(1);
  // Known partitions give each output's rows.
  std::vector<int64_t> p;
  std::vector<int64_t> counts(ctx.outputs().size(), 0);
  bool known = known_int32s(ctx, 1, &p);
  for (auto k : p)
    if (k >= 0 && static_cast<size_t>(k) < counts.size())
      ++counts[static_cast<size_t>(k)];
  for (size_t i = 0; i < ctx.outputs().size(); ++i)
    ctx.set_output(i, partitions.known_rank() ? rows_of(
                        known ? counts[i] : -1, ctx.input(0), partitions.rank())
                                              : core::shape::unknown());
  return core::status::ok();
}

core::status dynamic_stitch_fn(shape_context& ctx) {
  // Inputs: N indices, then N data; the rows' shape from the first pair,
  // their number from the indices when they are known.
  auto n = ctx.num_inputs() / 2;
  int64_t rows = 0;
  for (size_t k = 0; k < n && rows >= 0; ++k) {
    std::vector<int64_t> idx;
    if (!known_int32s(ctx, k, &idx))
      rows = -1;
    for (auto i : idx)
      rows = rows < 0 ? rows : std::max(rows, i + 1);
  }
  const auto& indices = ctx.input(0);
  ctx.set_output(0, n > 0 && indices.known_rank()
                      ? rows_of(rows, ctx.input(n), indices.rank())
                      : core::shape::unknown());
  return core::status::ok();
}

core::status unsorted_segment_fn(shape_context& ctx) {
  std::vector<int64_t> count;
  auto segments
    = ctx.input_ints(2, &count) && count.size() == 1 ? count[0] : -1;
  const auto& ids = ctx.input(1);
  ctx.set_output(0, ids.known_rank()
                      ? rows_of(segments, ctx.input(0), ids.rank())
                      : core::shape::unknown());
  return core::status::ok();
}

core::status sorted_segment_fn(shape_context& ctx) {
  std::vector<int64_t> ids;
  auto segments
    = ctx.input_ints(1, &ids) ? (ids.empty() ? 0 : ids.back() + 1) : -1;
  ctx.set_output(0, rows_of(segments, ctx.input(0), 1));
  return core::status::ok();
}

} // namespace

core::status register_dispatch_ops(op_registry& r) {
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("DynamicPartition")
                                    .input("data: T")
                                    .input("partitions: int32")
                                    .output("outputs: num_partitions * T")
                                    .attr("num_partitions: int")
                                    .attr("T: type")
                                    .shape_fn(dynamic_partition_fn)));
  // ParallelDynamicStitch differs only in leaving open which of two equal
  // indices wins.
  for (const char* name : {"DynamicStitch", "ParallelDynamicStitch"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("indices: N * int32")
                                      .input("data: N * T")
                                      .output("merged: T")
                                      .attr("N: int")
                                      .attr("T: type")
                                      .shape_fn(dynamic_stitch_fn)));
  const char* numbers = "T: {float, double, int32, int64}";
  for (const char* name : {"UnsortedSegmentSum", "UnsortedSegmentProd",
                           "UnsortedSegmentMax", "UnsortedSegmentMin"})
    ACTORFLOW_RETURN_IF_ERROR(
      r.add(op_def_builder(name)
              .input("data: T")
              .input("segment_ids: Tindices")
              .input("num_segments: Tnumsegments")
              .output("output: T")
              .attr(numbers)
              .attr("Tindices: {int32, int64}")
              .attr("Tnumsegments: {int32, int64} = int32")
              .shape_fn(unsorted_segment_fn)));
  for (const char* name : {"SegmentSum", "SegmentMean"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("data: T")
                                      .input("segment_ids: Tindices")
                                      .output("output: T")
                                      .attr(numbers)
                                      .attr("Tindices: {int32, int64}")
                                      .shape_fn(sorted_segment_fn)));
  return core::status::ok();
}

} // namespace actorflow::ops::defs
