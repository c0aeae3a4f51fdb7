#pragma once

/// What every session of one engine shares: the registries, the devices,
/// the variable containers and the metrics.

#include <memory>
#include <string>
#include <utility>

#include "actorflow/actors/metrics.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/devices/device_set.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/op_def_builder.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/resource_manager.hpp"

namespace actorflow::actors {

/// What every session of one engine shares. Owned by the engine, kept
/// alive by its sessions. The registries and devices are the engine's,
/// read-only to everyone else but for the ops and kernels an application
/// adds of its own (`add_op`, `add_kernel`), before the sessions that use
/// them start; the resources (variables, queues) and the metrics are
/// shared state, synchronized inside.
class runtime_context {
public:
  runtime_context(ops::op_registry ops, ops::kernel_registry kernels,
                  devices::device_set devices, std::string default_device)
    : ops_(std::move(ops)), kernels_(std::move(kernels)),
      devices_(std::move(devices)), default_device_(std::move(default_device)) {
    // nop
  }

  runtime_context(const runtime_context&) = delete;
  runtime_context& operator=(const runtime_context&) = delete;

  /// The ops graphs may use.
  const ops::op_registry& ops() const noexcept {
    return ops_;
  }

  /// The kernels of those ops, by device type.
  const ops::kernel_registry& kernels() const noexcept {
    return kernels_;
  }

  /// The engine's devices.
  const devices::device_set& devices() const noexcept {
    return devices_;
  }

  /// Where a node that asks for no device type goes
  /// (`engine_options::default_device`).
  const std::string& default_device() const noexcept {
    return default_device_;
  }

  /// The variable containers, queues and collectives of every session.
  ops::resource_manager& resources() noexcept {
    return resources_;
  }

  const ops::resource_manager& resources() const noexcept {
    return resources_;
  }

  /// What the engine counts for an operator to scrape.
  const std::shared_ptr<actors::metrics>& counters() const noexcept {
    return counters_;
  }

  /// Adds an op of the application's own (as TensorFlow's `REGISTER_OP`);
  /// a name already taken is `already_exists`.
  core::status add_op(const ops::op_def_builder& op) {
    return ops_.add(op);
  }

  /// Adds `Kernel` as op `op`'s kernel on devices of `device_type`
  /// (`"cpu"`), for every dtype.
  template <class Kernel>
  void add_kernel(const std::string& op, const std::string& device_type) {
    kernels_.add_any<Kernel>(op, device_type);
  }

private:
  ops::op_registry ops_;
  ops::kernel_registry kernels_;
  devices::device_set devices_;
  std::string default_device_;
  ops::resource_manager resources_;
  std::shared_ptr<actors::metrics> counters_
    = std::make_shared<actors::metrics>();
};

} // namespace actorflow::actors
