#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "actorflow/core/device_name.hpp"
#include "actorflow/devices/cpu_device.hpp"
#include "actorflow/devices/device.hpp"

namespace actorflow::devices {

/// The devices of one worker, in a fixed order (the order of placement
/// preference).
class device_set {
public:
  /// Makes `num_cpus` CPU devices `/job:J/task:T/device:cpu:N`, each with
  /// `threads_per_cpu` threads whose pool polls for work for `pool_spin`
  /// after its last task.
  static device_set
  make_local(int num_cpus, int threads_per_cpu,
             const std::string& job = "localhost", int task = 0,
             std::chrono::microseconds pool_spin = default_pool_spin);

  void add(std::shared_ptr<device> dev);

  const std::vector<std::shared_ptr<device>>& all() const noexcept {
    return devices_;
  }

  /// Returns the devices matching a (partial) name, in order.
  std::vector<device*> matching(const core::device_name& spec) const;

  /// Returns the device with exactly this full name, or nullptr.
  device* find(const std::string& full_name) const;

private:
  std::vector<std::shared_ptr<device>> devices_;
};

} // namespace actorflow::devices
