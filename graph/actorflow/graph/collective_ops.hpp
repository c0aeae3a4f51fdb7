#pragma once

/// Collectives among the devices of a group, as TensorFlow's
/// collective_ops: each member runs its part, in its own graph and step
/// or in one graph over several workers, and gets the group's result.

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// The sum (or, with `mean`, the mean) of `x` over the devices in
/// `members` (full names, `/job:J/task:T/device:cpu:N`, the same list in
/// the same order on every member): this node is the part of the member
/// whose device it is placed on (the scope's). The k-th run of
/// `instance_key` on one member meets the k-th on the others; every member
/// gives a tensor of the same dtype and shape. A member that fails or goes
/// away fails the run on all of them, naming it.
output collective_all_reduce(const scope& s, const output& x,
                             const std::vector<std::string>& members,
                             int64_t instance_key, bool mean = false);

/// How `all_reduce` groups its values.
struct all_reduce_options {
  /// The group's devices, in ring order; see `collective_all_reduce`.
  std::vector<std::string> members;
  /// The instance key of the first bucket; bucket b has key + b.
  int64_t instance_key = 1;
  /// Averages rather than sums.
  bool mean = false;
  /// Values of one dtype and known shapes are flattened and fused into
  /// buckets of at most this many bytes (a value larger than that is a
  /// bucket of its own), one all-reduce each: a few large transfers rather
  /// than many small ones. 0: one all-reduce per value.
  int64_t bucket_bytes = int64_t{4} << 20;
};

/// All-reduces `values` (this member's parts) in buckets and returns the
/// results in their order and shapes. Every member passes values of the
/// same dtypes and shapes in the same order, so that they fuse alike.
std::vector<output> all_reduce(const scope& s,
                               const std::vector<output>& values,
                               const all_reduce_options& options);

} // namespace actorflow::graph
