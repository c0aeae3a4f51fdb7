#include "actorflow/ops/registration.hpp"

// The CPU kernels that only pass handles on serve the GPU as well.
#include "../cpu/kernels.hpp"
#include "gpu_kernels.hpp"
#include "plans.hpp"

namespace actorflow::ops {

void register_gpu_kernels(kernel_registry& r) {
  cpu::register_handle_kernels(r, gpu::device_type);
  gpu::register_math_kernels(r);
  gpu::register_nn_kernels(r);
  gpu::register_matmul_kernels(r);
  gpu::register_training_kernels(r);
  gpu::register_copy_kernels(r);
  gpu::register_array_kernels(r);
  gpu::register_conv_kernels(r);
  gpu::register_pool_kernels(r);
  gpu::register_batch_norm_kernels(r);
}

namespace gpu {

devices::cuda::gpu_device& device_of(kernel_context& ctx) {
  auto& dev = static_cast<devices::cuda::gpu_device&>(ctx.device());
  dev.activate();
  return dev;
}

core::status elem_of(core::dtype type, elem* out) {
  switch (type) {
    case core::dtype::float16: *out = elem::f16; return core::status::ok();
    case core::dtype::bfloat16: *out = elem::bf16; return core::status::ok();
    case core::dtype::float32: *out = elem::f32; return core::status::ok();
    case core::dtype::float64: *out = elem::f64; return core::status::ok();
    case core::dtype::int32: *out = elem::i32; return core::status::ok();
    case core::dtype::int64: *out = elem::i64; return core::status::ok();
    case core::dtype::bool_: *out = elem::b8; return core::status::ok();
    case core::dtype::uint8: *out = elem::u8; return core::status::ok();
    default:
      return core::unimplemented_error("no GPU element type for ",
                                       core::to_string(type));
  }
}

core::status launched(cudaError_t err, const char* what) {
  return devices::cuda::check(err, what);
}

core::status copy_strided(devices::cuda::gpu_device& dev,
                          const core::tensor& src, core::tensor& dst,
                          const strided_copy& copy) {
  box_index box;
  ACTORFLOW_RETURN_IF_ERROR(to_box(copy, &box));
  return launched(copy_box(static_cast<int>(core::size_of(src.dtype())),
                           src.raw_data(), dst.raw_mutable_data(), box,
                           dev.compute_stream()),
                  "strided copy");
}

core::status reduce_on(devices::cuda::gpu_device& dev, reduce_fn fn,
                       const core::tensor& x, core::tensor& y, int64_t outer,
                       int64_t mid, int64_t inner) {
  elem type;
  ACTORFLOW_RETURN_IF_ERROR(elem_of(x.dtype(), &type));
  auto plan = plan_reduce(outer, mid, inner);
  core::tensor partials;
  void* scratch = nullptr;
  if (plan.partial_elements() > 0) {
    ACTORFLOW_RETURN_IF_ERROR(
      core::tensor::make(dev.allocator(core::memory_type::device), x.dtype(),
                         core::shape{plan.partial_elements()}, &partials));
    scratch = partials.raw_mutable_data();
  }
  auto err = reduce(fn, type, x.raw_data(), y.raw_mutable_data(), plan, scratch,
                    dev.compute_stream());
  return launched(err, "reduction");
}

memory_spec host_memory(std::vector<int> inputs, std::vector<int> outputs) {
  memory_spec spec;
  spec.host_inputs = std::move(inputs);
  spec.host_outputs = std::move(outputs);
  return spec;
}

} // namespace gpu

} // namespace actorflow::ops
