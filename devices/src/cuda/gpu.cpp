// The GPU entry points of a build with CUDA.

#include "actorflow/devices/gpu.hpp"

#include "actorflow/core/logging.hpp"
#include "actorflow/devices/device_set.hpp"
#include "gpu_device.hpp"

namespace actorflow::devices {

bool cuda_enabled() noexcept {
  return true;
}

int visible_gpus() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); // no driver or no GPU: not an error here
    return 0;
  }
  return n;
}

core::status add_gpu_devices(device_set& devices, int max_count,
                             const std::string& job, int task, int* added) {
  *added = 0;
  auto n = visible_gpus();
  if (max_count >= 0 && max_count < n)
    n = max_count;
  for (int i = 0; i < n; ++i) {
    core::device_name name;
    name.job = job;
    name.task = task;
    name.type = "gpu";
    name.id = i;
    auto dev = std::make_shared<cuda::gpu_device>(name, i);
    ACTORFLOW_RETURN_IF_ERROR(dev->init_status());
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, i) == cudaSuccess)
      core::log().debug("{}: {} ({} MiB, compute capability {}.{})",
                        dev->name(), prop.name, prop.totalGlobalMem >> 20,
                        prop.major, prop.minor);
    devices.add(std::move(dev));
    ++*added;
  }
  return core::status::ok();
}

} // namespace actorflow::devices
