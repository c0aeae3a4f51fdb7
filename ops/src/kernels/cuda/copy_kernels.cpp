// The copies graph::insert_memory_copies puts between host and device
// memory inside a GPU partition.

#include <mutex>

#include "actorflow/ops/registration.hpp"
#include "gpu_kernels.hpp"

namespace actorflow::ops::gpu {

namespace {

/// Host to device: queued on the copy stream, which the compute stream
/// waits for, so the output is usable at once. A constant (the same host
/// buffer every step, as a bound Const is) is copied once and its device
/// copy reused.
class host_to_device_kernel : public cheap_kernel {
public:
  explicit host_to_device_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    {
      std::lock_guard<std::mutex> guard{mtx_};
      if (last_host_.valid() && last_host_.shares_buffer_with(x)
          && last_host_.shape() == x.shape()) {
        ctx.set_output(0, last_device_);
        return;
      }
    }
    auto& dev = device_of(ctx);
    core::tensor y;
    ACTORFLOW_OP_REQUIRES_OK(ctx, dev.copy_to_device(x, &y));
    ctx.set_output(0, y);
    std::lock_guard<std::mutex> guard{mtx_};
    last_host_ = x;
    last_device_ = std::move(y);
  }

private:
  std::mutex mtx_;
  core::tensor last_host_;   ///< Held, so its buffer is not reused.
  core::tensor last_device_; ///< Shared with consumers: never written.
};

/// Device to host: queued on the copy stream after the compute stream's
/// work; completes through a callback, so the node's actor never waits.
class device_to_host_kernel : public cheap_kernel {
public:
  explicit device_to_host_kernel(kernel_construction&) {
    // nop
  }

  bool is_async() const noexcept override {
    return true;
  }

  void compute(kernel_context& ctx) override {
    ctx.fail(core::internal_error("_DeviceToHost runs asynchronously"));
  }

  void compute_async(kernel_context& ctx, done_callback done) override {
    auto& dev = device_of(ctx);
    dev.copy_to_host(ctx.input(0), [&ctx, done = std::move(done)](
                                     core::status st, core::tensor value) {
      if (st.is_ok())
        ctx.set_output(0, std::move(value));
      else
        ctx.fail(std::move(st));
      done();
    });
  }
};

} // namespace

void register_copy_kernels(kernel_registry& r) {
  r.add_any<host_to_device_kernel>(runtime_op::host_to_device, device_type,
                                   host_memory({0}, {}));
  r.add_any<device_to_host_kernel>(runtime_op::device_to_host, device_type,
                                   host_memory({}, {0}));
}

} // namespace actorflow::ops::gpu
