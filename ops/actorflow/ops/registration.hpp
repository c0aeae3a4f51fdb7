#pragma once

#include "actorflow/core/status.hpp"

namespace actorflow::ops {

class kernel_registry;
class op_registry;

/// Registers every built-in op definition. The one place that lists them.
core::status register_ops(op_registry& registry);

/// Registers every built-in CPU kernel.
void register_cpu_kernels(kernel_registry& registry);

/// Registers every built-in GPU kernel (none in a build without CUDA).
void register_gpu_kernels(kernel_registry& registry);

/// Makes OpenBLAS single-threaded, so that the CPU kernels cut large
/// matrix products into blocks for their device's thread pool instead of
/// OpenBLAS's own threads, which spin after each call and compete with the
/// actors and concurrent kernels. Process-wide (OpenBLAS has one setting);
/// the engine calls it. `openblas_set_num_threads(n)` afterwards hands the
/// threading back to OpenBLAS.
void configure_cpu_blas();

/// Names of the ops that the runtime implements itself (no kernels): the
/// feed/fetch endpoints and the transfer pair.
namespace runtime_op {
inline constexpr const char* feed = "_Feed";
inline constexpr const char* fetch = "_Fetch";
inline constexpr const char* send = "_Send";
inline constexpr const char* recv = "_Recv";
/// Copies inside a GPU partition (kernels of their own, unlike the rest).
inline constexpr const char* host_to_device = "_HostToDevice";
inline constexpr const char* device_to_host = "_DeviceToHost";
} // namespace runtime_op

} // namespace actorflow::ops
