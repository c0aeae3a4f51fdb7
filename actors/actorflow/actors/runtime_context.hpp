#pragma once

#include <memory>
#include <string>

#include "actorflow/actors/metrics.hpp"

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
  /// What the engine counts for an operator to scrape.
  std::shared_ptr<actors::metrics> counters
    = std::make_shared<actors::metrics>();
};

} // namespace actorflow::actors
