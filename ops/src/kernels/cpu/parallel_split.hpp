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
/// kernel's blocks already: `threads()` is then 1 and the work stays on
/// the calling thread. The caller takes blocks too, so a pool thread that
/// starts late finds none left and costs nothing.
class parallel_split {
public:
  /// Claims `ctx`'s pool if `worth_it` and `ctx` is not null.
  parallel_split(kernel_context* ctx, bool worth_it) noexcept;

  parallel_split(const parallel_split&) = delete;
  parallel_split& operator=(const parallel_split&) = delete;

  ~parallel_split();

  /// Threads the work may use: the pool's if claimed, else 1.
  int threads() const noexcept {
    return threads_;
  }

  /// Runs `block(part)` for every part of [0, `parts`) on the calling
  /// thread and, with the pool claimed, on the pool; returns when all are
  /// done.
  void run(int parts, const std::function<void(int)>& block) const;

private:
  kernel_context* ctx_ = nullptr;
  devices::cpu_device* device_ = nullptr; ///< Set while the pool is claimed.
  int threads_ = 1;
};

} // namespace actorflow::ops::cpu
