#include "actorflow/devices/cpu_device.hpp"

#include <unsupported/Eigen/CXX11/Tensor>
#include <unsupported/Eigen/CXX11/ThreadPool>

#include "cpu_thread_pool.hpp"

#include "actorflow/core/cpu_allocator.hpp"

namespace actorflow::devices {

struct cpu_device::impl {
  impl(int n, std::chrono::microseconds spin)
    : spin(spin), pool(n, spin), eigen(&pool, pool.NumThreads()),
      alloc(std::make_shared<core::cpu_allocator>()) {
    // nop
  }
  std::chrono::microseconds spin;
  cpu_thread_pool pool;
  Eigen::ThreadPoolDevice eigen;
  std::shared_ptr<core::allocator> alloc;
};

cpu_device::cpu_device(core::device_name name, int num_threads,
                       std::chrono::microseconds spin)
  : device(std::move(name)), impl_(std::make_unique<impl>(num_threads, spin)) {
  // nop
}

cpu_device::~cpu_device() {
  // nop
}

const std::shared_ptr<core::allocator>&
cpu_device::allocator(core::memory_type) const {
  return impl_->alloc;
}

void cpu_device::schedule(std::function<void()> work) {
  impl_->pool.Schedule(std::move(work));
}

void cpu_device::when_idle(done_callback done) {
  // CPU kernels complete before they return.
  done(core::status::ok());
}

int cpu_device::num_threads() const noexcept {
  return impl_->pool.NumThreads();
}

std::chrono::microseconds cpu_device::pool_spin() const noexcept {
  return impl_->spin;
}

const Eigen::ThreadPoolDevice& cpu_device::eigen_device() const noexcept {
  return impl_->eigen;
}

} // namespace actorflow::devices
