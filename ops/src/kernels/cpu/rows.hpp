#pragma once

// Internal: the row view that the dispatch and segment kernels share. A
// row is what lies under one element of the partitions, indices or
// segment ids, whose shape is a prefix of the data's.

#include <cstdint>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::ops::cpu {

/// Fails unless `prefix` is a prefix of `s`; names the inputs
/// (`prefix_name` "partitions'", `data_name` "data's").
core::status check_prefix(const core::shape& prefix, const core::shape& s,
                          const char* prefix_name, const char* data_name);

/// `s` without its first `skip` dimensions, `rows` in front.
core::shape rows_shape(int64_t rows, const core::shape& s, int skip);

/// The elements of one row of `data` under a `skip`-dimension prefix.
int64_t row_size(const core::shape& data, int skip);

} // namespace actorflow::ops::cpu
