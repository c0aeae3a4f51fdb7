#pragma once

// Internal: one function per kernel family, called by register_cpu_kernels.

#include <vector>

#include "actorflow/devices/cpu_device.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/kernel_registry.hpp"

namespace actorflow::ops::cpu {

inline constexpr const char* device_type = "cpu";

void register_array_kernels(kernel_registry& r);
void register_binary_kernels(kernel_registry& r);
void register_matmul_kernels(kernel_registry& r);
void register_state_kernels(kernel_registry& r);
void register_training_kernels(kernel_registry& r);
void register_io_kernels(kernel_registry& r);
void register_summary_kernels(kernel_registry& r);
void register_queue_kernels(kernel_registry& r);
void register_grad_kernels(kernel_registry& r);
void register_unary_kernels(kernel_registry& r);
void register_cast_select_kernels(kernel_registry& r);
void register_reduction_kernels(kernel_registry& r);
void register_shape_kernels(kernel_registry& r);
void register_transform_kernels(kernel_registry& r);
void register_concat_kernels(kernel_registry& r);
void register_nn_kernels(kernel_registry& r);
void register_conv_kernels(kernel_registry& r);
void register_random_kernels(kernel_registry& r);
void register_linalg_kernels(kernel_registry& r);
void register_control_flow_kernels(kernel_registry& r);

/// Reads an int32 or int64 tensor (scalar or vector) as int64 values.
std::vector<int64_t> read_ints(const core::tensor& t);

/// Reads scalar `t` (int32 or int64) after checking it is one; `what`
/// names it in the error.
core::status read_scalar_int(const core::tensor& t, const char* what,
                             int64_t* out);

/// Resolves `axis` (negative counts from the end) against `rank`; an axis
/// out of [-rank, rank) is `invalid_argument`.
core::status canonical_axis(int64_t axis, int rank, int* out);

/// Returns the Eigen device of the CPU device a kernel runs on.
inline const Eigen::ThreadPoolDevice& eigen_device(kernel_context& ctx) {
  return static_cast<devices::cpu_device&>(ctx.device()).eigen_device();
}

/// Elements below which element-wise kernels stay on the calling thread.
inline constexpr int64_t parallel_threshold = 1 << 15;

} // namespace actorflow::ops::cpu
