#pragma once

// Internal: what the GPU kernels share. The CUDA code itself is in the .cu
// files behind launch.hpp; these C++ classes check shapes and attrs,
// allocate, and queue launches on the device's compute stream.

#include <string>
#include <vector>

#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "cuda/gpu_device.hpp"
#include "launch.hpp"

namespace actorflow::ops::gpu {

inline constexpr const char* device_type = "gpu";

/// The GPU device `ctx` runs on, made current on this thread.
devices::cuda::gpu_device& device_of(kernel_context& ctx);

/// The CUDA element type of `type`; `unimplemented` for the others.
core::status elem_of(core::dtype type, elem* out);

/// Turns the error of a launch into a status.
core::status launched(cudaError_t err, const char* what);

struct strided_copy;

/// Queues `copy` from device tensor `src` into `dst` on the compute
/// stream; at most `max_rank` dimensions.
core::status copy_strided(devices::cuda::gpu_device& dev,
                          const core::tensor& src, core::tensor& dst,
                          const strided_copy& copy);

/// Reduces device tensor `x`, viewed as [outer, mid, inner], over `mid`
/// into `y` ([outer, inner], float or double), as `plan_reduce` cuts it;
/// scratch memory for partial results comes from the device's allocator.
core::status reduce_on(devices::cuda::gpu_device& dev, reduce_fn fn,
                       const core::tensor& x, core::tensor& y, int64_t outer,
                       int64_t mid, int64_t inner);

/// A memory spec with these inputs and outputs in host memory.
memory_spec host_memory(std::vector<int> inputs, std::vector<int> outputs);

/// The dtypes the GPU kernels compute in: float16 and bfloat16 (in float),
/// float32, float64.
#define ACTORFLOW_GPU_FLOAT_TYPES Eigen::half, Eigen::bfloat16, float, double

void register_math_kernels(kernel_registry& r);
void register_nn_kernels(kernel_registry& r);
void register_matmul_kernels(kernel_registry& r);
void register_training_kernels(kernel_registry& r);
void register_copy_kernels(kernel_registry& r);
void register_array_kernels(kernel_registry& r);
void register_conv_kernels(kernel_registry& r);
void register_pool_kernels(kernel_registry& r);
void register_batch_norm_kernels(kernel_registry& r);

} // namespace actorflow::ops::gpu
