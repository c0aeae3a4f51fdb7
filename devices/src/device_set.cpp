#include "actorflow/devices/device_set.hpp"

#include "actorflow/devices/cpu_device.hpp"

namespace actorflow::devices {

device_set device_set::make_local(int num_cpus, int threads_per_cpu,
                                  const std::string& job, int task,
                                  std::chrono::microseconds pool_spin) {
  device_set result;
  for (int i = 0; i < num_cpus; ++i) {
    core::device_name name;
    name.job = job;
    name.task = task;
    name.type = "cpu";
    name.id = i;
    result.add(std::make_shared<cpu_device>(name, threads_per_cpu, pool_spin));
  }
  return result;
}

void device_set::add(std::shared_ptr<device> dev) {
  devices_.push_back(std::move(dev));
}

std::vector<device*> device_set::matching(const core::device_name& spec) const {
  std::vector<device*> result;
  for (const auto& dev : devices_)
    if (spec.matches(dev->parsed_name()))
      result.push_back(dev.get());
  return result;
}

device* device_set::find(const std::string& full_name) const {
  for (const auto& dev : devices_)
    if (dev->name() == full_name)
      return dev.get();
  return nullptr;
}

} // namespace actorflow::devices
