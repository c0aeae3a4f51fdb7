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
void register_pool_kernels(kernel_registry& r);
void register_random_kernels(kernel_registry& r);
void register_linalg_kernels(kernel_registry& r);
void register_control_flow_kernels(kernel_registry& r);

/// Registers for `dev`, a device with memory of its own (a GPU), the CPU
/// kernels that only pass handles on, read shapes or hold state, and so
/// work on any memory: Identity, the control-flow ops, Const, VariableV2,
/// Assign, Shape, Reshape and the like. As in TensorFlow, int32 values
/// stay in host memory there, and so do shapes, axes and predicates; other
/// values are in device memory.
void register_handle_kernels(kernel_registry& r, const std::string& dev);

/// The pieces of `register_handle_kernels`, one per file.
void register_control_flow_handles(kernel_registry& r, const std::string& dev);
void register_array_handles(kernel_registry& r, const std::string& dev);
void register_shape_handles(kernel_registry& r, const std::string& dev);
void register_state_handles(kernel_registry& r, const std::string& dev);

/// Registers `K` for `op` on `dev`: int32 values in host memory, others
/// as `spec` says.
template <class K>
void add_handle_kernel(kernel_registry& r, const std::string& op,
                       const std::string& dev, const std::string& type_attr,
                       const memory_spec& spec) {
  memory_spec host;
  host.all_host = true;
  r.add(op, dev, core::dtype::int32, &kernel_registry::make_kernel<K>,
        type_attr, host);
  r.add(op, dev, core::dtype::invalid, &kernel_registry::make_kernel<K>, "",
        spec);
}

/// The batch dimensions of `s` (all but the last two).
core::shape batch_of(const core::shape& s);

/// BatchMatMul(V2) of x and y: each product's m x k times k x n, the
/// operands' batches and the batch they broadcast to, and the output's
/// shape (batch, m, n).
struct batch_product {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  core::shape x_batch;
  core::shape y_batch;
  core::shape batch;
  core::shape out;
};

/// Plans BatchMatMul(V2) of shapes `x` and `y` (adjoint as asked); an
/// operand of rank < 2, unequal inner dimensions or batches that do not
/// broadcast are `invalid_argument`.
core::status plan_batch_product(const core::shape& x, const core::shape& y,
                                bool adj_x, bool adj_y, batch_product* out);

/// Offset (in matrices) of batch element `i` of `out_batch` in a tensor
/// with batch shape `batch`, which broadcasts against it.
int64_t batch_offset(int64_t i, const core::shape& batch,
                     const core::shape& out_batch);

/// Checks FusedBatchNorm's inputs (x NHWC; scale, offset, mean and
/// variance [C], the last two possibly empty in training) and allocates
/// its five outputs (y like x, the others [C]); sets C and the rows each
/// channel has.
core::status batch_norm_outputs(kernel_context& ctx, bool training,
                                std::vector<core::tensor*>* outs,
                                int64_t* channels, int64_t* rows);

/// The same for FusedBatchNormGrad(y_backprop, x, scale, reserve_space_1,
/// reserve_space_2): x_backprop like x, scale and offset backprops [C],
/// two empty outputs.
core::status batch_norm_grad_outputs(kernel_context& ctx,
                                     std::vector<core::tensor*>* outs,
                                     int64_t* channels, int64_t* rows);

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
