#pragma once

// Internal to the .cu files: the launch shape every element-wise kernel
// uses (256 threads a block, grid-stride loops beyond the block count).

#include <cstdint>

namespace actorflow::ops::gpu {

inline constexpr int threads = 256;

/// Blocks for `n` elements: one per 256, at most 524,280 (grid-stride
/// loops cover the rest), at least one.
inline unsigned blocks_for(int64_t n) {
  auto b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 65535 * 8 ? (b < 1 ? 1 : b) : 65535 * 8);
}

} // namespace actorflow::ops::gpu
