#pragma once

#include <memory>

#include "actorflow/devices/device.hpp"

namespace Eigen {
struct ThreadPoolDevice;
} // namespace Eigen

namespace actorflow::devices {

/// A CPU device: a 64-byte aligned allocator and a thread pool of its own,
/// exposed to kernels as an Eigen `ThreadPoolDevice` for intra-op
/// parallelism.
class cpu_device : public device {
public:
  cpu_device(core::device_name name, int num_threads);

  ~cpu_device() override;

  const std::shared_ptr<core::allocator>&
  allocator(core::memory_type where) const override;

  void schedule(std::function<void()> work) override;

  void when_idle(done_callback done) override;

  int num_threads() const noexcept override;

  /// Returns the Eigen device that CPU kernels evaluate expressions on.
  const Eigen::ThreadPoolDevice& eigen_device() const noexcept;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace actorflow::devices
