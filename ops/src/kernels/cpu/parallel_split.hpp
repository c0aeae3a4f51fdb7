#pragma once

// Internal: one kernel's work cut into blocks over its device's pool.

#include <functional>

#include "actorflow/devices/cpu_device.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::cpu {

/// Claims a CPU device's thread pool for one kernel that cuts its work into
/// blocks (TensorFlow's intra-op pool), and gives it back when destroyed.
///
/// When another kernel holds the pool, its cores are busy with that
/// kernel's blocks already: `threads()` is then 1. Work cut into
/// `pool_threads()` blocks anyway has the blocks beyond the caller's wait
/// in the pool's queue for a thread the other kernel gives back. The
/// caller takes blocks too, so a pool thread that starts late finds none
/// left and costs nothing.
class parallel_split {
public:
  /// Claims `ctx`'s pool if free, `worth_it` and `ctx` is not null.
  parallel_split(kernel_context* ctx, bool worth_it) noexcept;

  parallel_split(const parallel_split&) = delete;
  parallel_split& operator=(const parallel_split&) = delete;

  ~parallel_split();

  /// Threads the work may use at once: the pool's if claimed, else 1.
  int threads() const noexcept;

  /// The pool's threads, claimed or not (1 without a pool to use): how
  /// many blocks a long kernel cuts its work into, so that a pool thread
  /// another kernel frees can join it.
  int pool_threads() const noexcept;

  /// Runs `block(part)` for every part of [0, `parts`) on the calling
  /// thread and on the pool's threads as they come free; returns when all
  /// are done.
  void run(int parts, const std::function<void(int)>& block) const;

private:
  kernel_context* ctx_ = nullptr;
  devices::cpu_device* device_ = nullptr; ///< Set when splitting is worth it.
  bool claimed_ = false;
};

} // namespace actorflow::ops::cpu
