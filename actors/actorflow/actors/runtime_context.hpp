#pragma once

#include <string>

#include "actorflow/devices/device_set.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/resource_manager.hpp"

namespace actorflow::actors {

/// What every session of one engine shares: the registries, the devices and
/// the variable containers. Owned by the engine, kept alive by its sessions.
struct runtime_context {
  ops::op_registry ops;
  ops::kernel_registry kernels;
  devices::device_set devices;
  ops::resource_manager resources;
  std::string default_device;
};

} // namespace actorflow::actors
