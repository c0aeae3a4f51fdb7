// The GPU entry points of a build without CUDA: no GPU is ever added.

#include "actorflow/devices/gpu.hpp"

namespace actorflow::devices {

core::status add_gpu_devices(device_set&, int, const std::string&, int,
                             int* added) {
  *added = 0;
  return core::status::ok();
}

bool cuda_enabled() noexcept {
  return false;
}

int visible_gpus() noexcept {
  return 0;
}

} // namespace actorflow::devices
