#pragma once

// Builders of the dispatch, segment and coordinate ops: what a mixture of
// experts sends rows to its experts and combines their results with, and
// what TensorFlow's tensor2tensor-style dispatchers import as.
//
// A row is what lies under one element of the partitions, indices or
// segment ids (int32 unless said), whose shape is a prefix of the data's;
// a coordinate is the last dimension of a GatherNd / ScatterNd index
// tensor and names a slice of the target.

#include <cstdint>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// TensorFlow's dynamic_partition: row i of `data` to output
/// partitions[i] of `num_partitions`, in order.
std::vector<output> dynamic_partition(const scope& s, const output& data,
                                      const output& partitions,
                                      int64_t num_partitions);
/// TensorFlow's dynamic_stitch: row j of data[k] at row indices[k][j] of
/// the result (later ones win).
output dynamic_stitch(const scope& s, const std::vector<output>& indices,
                      const std::vector<output>& data);

/// TensorFlow's unsorted_segment_sum: the rows of `data` added up per
/// segment id into `num_segments` rows (a negative id drops its row).
output unsorted_segment_sum(const scope& s, const output& data,
                            const output& segment_ids,
                            const output& num_segments);
/// The product per segment (an empty one is 1).
output unsorted_segment_prod(const scope& s, const output& data,
                             const output& segment_ids,
                             const output& num_segments);
/// The maximum per segment (an empty one is the lowest value).
output unsorted_segment_max(const scope& s, const output& data,
                            const output& segment_ids,
                            const output& num_segments);
/// The minimum per segment (an empty one is the highest value).
output unsorted_segment_min(const scope& s, const output& data,
                            const output& segment_ids,
                            const output& num_segments);
/// The sum per segment of sorted ids along data's first dimension, as many
/// segments as the last id says.
output segment_sum(const scope& s, const output& data,
                   const output& segment_ids);
/// The mean per segment of sorted ids (an empty segment is 0).
output segment_mean(const scope& s, const output& data,
                    const output& segment_ids);

/// TensorFlow's where with one argument: the int64 coordinates of the
/// non-zero elements of `x`, [count, rank(x)], row-major.
output where(const scope& s, const output& x);
/// The slices of `params` at the coordinates of `indices`.
output gather_nd(const scope& s, const output& params, const output& indices);
/// A zero tensor of `shape` with the slices of `updates` added at the
/// coordinates of `indices` (repeats add up).
output scatter_nd(const scope& s, const output& indices, const output& updates,
                  const output& shape);
/// `tensor` with the slices at `indices` replaced by `updates`.
output tensor_scatter_update(const scope& s, const output& tensor,
                             const output& indices, const output& updates);
/// `tensor` with `updates` added to the slices at `indices`.
output tensor_scatter_add(const scope& s, const output& tensor,
                          const output& indices, const output& updates);

} // namespace actorflow::graph
