#pragma once

// Internal: one kernel's work cut into blocks over its device's pool.

#include <cstdint>
#include <functional>

#include "actorflow/devices/cpu_device.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::cpu {

/// Cuts one kernel's work into blocks for the calling thread and its CPU
/// device's thread pool (TensorFlow's intra-op pool).
///
/// The caller takes blocks too, so a pool thread that starts late -- asleep,
/// or busy with the blocks of a kernel running beside this one -- finds none
/// left and costs nothing, and one that comes free joins at once. (Once a
/// kernel that found the pool busy ran whole on its calling thread: the
/// gradients of a convolution start together, and the second finished its
/// last 12 ms on one core while the other idled.)
class parallel_split {
public:
  /// Splits over `ctx`'s pool if `worth_it` and `ctx` is not null.
  parallel_split(kernel_context* ctx, bool worth_it) noexcept;

  /// How many blocks to cut the work into: one per pool thread, or 1
  /// without a pool to use.
  int threads() const noexcept;

  /// Runs `block(part)` for every part of [0, `parts`) on the calling
  /// thread and on the pool's threads as they come free; returns when all
  /// are done.
  void run(int parts, const std::function<void(int)>& block) const;

  /// Runs `range(begin, end)` over [0, `n`) cut into a block per thread,
  /// each starting on a multiple of 16 elements (no two blocks write one
  /// cache line of floats).
  void for_range(int64_t n,
                 const std::function<void(int64_t, int64_t)>& range) const;

private:
  kernel_context* ctx_ = nullptr;
  devices::cpu_device* device_ = nullptr; ///< Set when splitting is worth it.
};

} // namespace actorflow::ops::cpu
