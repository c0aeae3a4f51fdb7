#pragma once

// Internal: NumPy broadcasting for the kernels that do it by index
// (binary ops of unequal shapes, BroadcastTo, SelectV2).

#include <cstdint>
#include <vector>

#include "actorflow/core/shape.hpp"

namespace actorflow::ops::cpu {

/// Strides of `s` aligned to the last `rank` dimensions of the output `out`,
/// with 0 where `s` broadcasts.
std::vector<int64_t> broadcast_strides(const core::shape& s, int rank,
                                       const core::shape& out);

} // namespace actorflow::ops::cpu
