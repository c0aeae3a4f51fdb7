#include "actorflow/graph/dispatch_ops.hpp"

#include "builder_util.hpp"

namespace actorflow::graph {

using detail::first;
using detail::typed;

namespace {

output segment_op(const scope& s, const char* op, const output& data,
                  const output& ids, const output& num_segments) {
  return typed(
    s, op, {data, ids, num_segments},
    {{"Tindices", ids.dtype()}, {"Tnumsegments", num_segments.dtype()}});
}

output scatter_op(const scope& s, const char* op, const output& tensor,
                  const output& indices, const output& updates) {
  return typed(s, op, {tensor, indices, updates},
               {{"Tindices", indices.dtype()}});
}

} // namespace

std::vector<output> dynamic_partition(const scope& s, const output& data,
                                      const output& partitions,
                                      int64_t num_partitions) {
  return s.add_node("DynamicPartition", "DynamicPartition", {data, partitions},
                    {{"T", data.dtype()}, {"num_partitions", num_partitions}});
}

output dynamic_stitch(const scope& s, const std::vector<output>& indices,
                      const std::vector<output>& data) {
  auto inputs = indices;
  inputs.insert(inputs.end(), data.begin(), data.end());
  return first(s.add_node(
    "DynamicStitch", "DynamicStitch", inputs,
    {{"N", static_cast<int64_t>(indices.size())},
     {"T", data.empty() ? core::dtype::float32 : data.front().dtype()}}));
}

output unsorted_segment_sum(const scope& s, const output& data,
                            const output& segment_ids,
                            const output& num_segments) {
  return segment_op(s, "UnsortedSegmentSum", data, segment_ids, num_segments);
}

output unsorted_segment_prod(const scope& s, const output& data,
                             const output& segment_ids,
                             const output& num_segments) {
  return segment_op(s, "UnsortedSegmentProd", data, segment_ids, num_segments);
}

output unsorted_segment_max(const scope& s, const output& data,
                            const output& segment_ids,
                            const output& num_segments) {
  return segment_op(s, "UnsortedSegmentMax", data, segment_ids, num_segments);
}

output unsorted_segment_min(const scope& s, const output& data,
                            const output& segment_ids,
                            const output& num_segments) {
  return segment_op(s, "UnsortedSegmentMin", data, segment_ids, num_segments);
}

output segment_sum(const scope& s, const output& data,
                   const output& segment_ids) {
  return typed(s, "SegmentSum", {data, segment_ids},
               {{"Tindices", segment_ids.dtype()}});
}

output segment_mean(const scope& s, const output& data,
                    const output& segment_ids) {
  return typed(s, "SegmentMean", {data, segment_ids},
               {{"Tindices", segment_ids.dtype()}});
}

output where(const scope& s, const output& x) {
  return typed(s, "Where", {x});
}

output gather_nd(const scope& s, const output& params, const output& indices) {
  return first(
    s.add_node("GatherNd", "GatherNd", {params, indices},
               {{"Tparams", params.dtype()}, {"Tindices", indices.dtype()}}));
}

output scatter_nd(const scope& s, const output& indices, const output& updates,
                  const output& shape) {
  return first(
    s.add_node("ScatterNd", "ScatterNd", {indices, updates, shape},
               {{"T", updates.dtype()}, {"Tindices", indices.dtype()}}));
}

output tensor_scatter_update(const scope& s, const output& tensor,
                             const output& indices, const output& updates) {
  return scatter_op(s, "TensorScatterUpdate", tensor, indices, updates);
}

output tensor_scatter_add(const scope& s, const output& tensor,
                          const output& indices, const output& updates) {
  return scatter_op(s, "TensorScatterAdd", tensor, indices, updates);
}

} // namespace actorflow::graph
