#pragma once

#include <functional>
#include <memory>
#include <string>

#include "actorflow/core/allocator.hpp"
#include "actorflow/core/device_name.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::devices {

/// A place where kernels run and tensors live: a CPU with its thread pool,
/// later a GPU with its streams.
///
/// A device is owned by the engine's worker and outlives every kernel built
/// for it. Work is handed over as closures; completion is reported through a
/// callback so that an accelerator can finish asynchronously without any
/// thread waiting for it.
class device {
public:
  using done_callback = std::function<void(core::status)>;

  /// `name` is the full canonical name, e.g.
  /// `/job:localhost/task:0/device:cpu:0`.
  explicit device(core::device_name name);

  virtual ~device();

  const std::string& name() const noexcept {
    return full_name_;
  }

  const core::device_name& parsed_name() const noexcept {
    return name_;
  }

  /// Returns the device type in lower case, e.g. "cpu".
  const std::string& type() const noexcept {
    return *name_.type;
  }

  /// Returns the allocator for memory of kind `where` (host memory of a GPU
  /// device is pinned memory).
  virtual const std::shared_ptr<core::allocator>&
  allocator(core::memory_type where) const = 0;

  /// Runs `work` on the device's own threads.
  virtual void schedule(std::function<void()> work) = 0;

  /// Calls `done` once all work queued so far has completed. A CPU device
  /// runs kernels synchronously and calls `done` at once; a GPU device
  /// records an event on its stream.
  virtual void when_idle(done_callback done) = 0;

  /// Returns the number of threads for intra-op parallelism.
  virtual int num_threads() const noexcept = 0;

private:
  core::device_name name_;
  std::string full_name_;
};

} // namespace actorflow::devices
