#pragma once

#include <chrono>
#include <memory>

#include "actorflow/devices/device.hpp"

namespace Eigen {
struct ThreadPoolDevice;
} // namespace Eigen

namespace actorflow::devices {

/// How long a CPU device's pool thread polls for work after its last task
/// before it sleeps, by default: longer than the gaps between the kernels
/// of a step, shorter than anything a person would notice as load.
inline constexpr std::chrono::microseconds default_pool_spin{300};

/// A CPU device: a 64-byte aligned allocator and a thread pool of its own,
/// exposed to kernels as an Eigen `ThreadPoolDevice` for intra-op
/// parallelism.
class cpu_device : public device {
public:
  /// A device with a pool of `num_threads` threads (at least one), which
  /// poll for work for `spin` after their last task before they sleep.
  cpu_device(core::device_name name, int num_threads,
             std::chrono::microseconds spin = default_pool_spin);

  ~cpu_device() override;

  const std::shared_ptr<core::allocator>&
  allocator(core::memory_type where) const override;

  void schedule(std::function<void()> work) override;

  void when_idle(done_callback done) override;

  int num_threads() const noexcept override;

  /// How long the pool's threads poll for work after their last task; a
  /// kernel's calling thread polls as long for its helpers' last blocks.
  std::chrono::microseconds pool_spin() const noexcept;

  /// Returns the Eigen device that CPU kernels evaluate expressions on.
  const Eigen::ThreadPoolDevice& eigen_device() const noexcept;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace actorflow::devices
