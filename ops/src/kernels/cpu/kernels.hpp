#pragma once

// Internal: one function per kernel family, called by register_cpu_kernels.

#include <vector>

#include "../common/checks.hpp"
#include "actorflow/devices/cpu_device.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/kernel_registry.hpp"

namespace actorflow::ops::cpu {

inline constexpr const char* device_type = "cpu";

void register_array_kernels(kernel_registry& r);
void register_binary_kernels(kernel_registry& r);
void register_matmul_kernels(kernel_registry& r);
void register_state_kernels(kernel_registry& r);
void register_resource_variable_kernels(kernel_registry& r);
void register_list_kernels(kernel_registry& r);
void register_list_bulk_kernels(kernel_registry& r);
void register_training_kernels(kernel_registry& r);
void register_io_kernels(kernel_registry& r);
void register_bundle_kernels(kernel_registry& r);
void register_string_kernels(kernel_registry& r);
void register_summary_kernels(kernel_registry& r);
void register_queue_kernels(kernel_registry& r);
void register_tensor_array_kernels(kernel_registry& r);
void register_dispatch_kernels(kernel_registry& r);
void register_collective_kernels(kernel_registry& r);
void register_segment_kernels(kernel_registry& r);
void register_nd_kernels(kernel_registry& r);
void register_broadcast_kernels(kernel_registry& r);
void register_scan_kernels(kernel_registry& r);
void register_grad_kernels(kernel_registry& r);
void register_unary_kernels(kernel_registry& r);
void register_cast_select_kernels(kernel_registry& r);
void register_reduction_kernels(kernel_registry& r);
void register_shape_kernels(kernel_registry& r);
void register_transform_kernels(kernel_registry& r);
void register_concat_kernels(kernel_registry& r);
void register_nn_kernels(kernel_registry& r);
void register_conv_kernels(kernel_registry& r);
void register_depthwise_conv_kernels(kernel_registry& r);
void register_fused_conv_kernels(kernel_registry& r);
void register_einsum_kernels(kernel_registry& r);
void register_resize_kernels(kernel_registry& r);
void register_space_batch_kernels(kernel_registry& r);
void register_volume_kernels(kernel_registry& r);
void register_batch_norm_kernels(kernel_registry& r);
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

/// Allocates output 0 and fills it with the slices of `params` along axis
/// `axis` that `indices` pick (GatherV2's, ResourceGather's); an index out
/// of range is invalid_argument naming it.
core::status gather_into_output(kernel_context& ctx, const core::tensor& params,
                                const core::tensor& indices, int axis);

/// Writes `values` into output `i` as a vector (or a scalar) of the
/// output's int32 or int64 dtype (Shape's, VariableShape's).
void emit_ints(kernel_context& ctx, const std::vector<int64_t>& values,
               bool scalar, size_t i = 0);

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

// The device-neutral checks, shared with the GPU's kernels.
using common::batch_norm_grad_outputs;
using common::batch_norm_outputs;
using common::batch_of;
using common::batch_offset;
using common::batch_product;
using common::canonical_axis;
using common::plan_batch_product;
using common::read_ints;
using common::read_scalar_int;
using common::read_scalar_string;
using common::strides_of;

/// Returns the Eigen device of the CPU device a kernel runs on.
inline const Eigen::ThreadPoolDevice& eigen_device(kernel_context& ctx) {
  return static_cast<devices::cpu_device&>(ctx.device()).eigen_device();
}

/// Elements below which element-wise kernels stay on the calling thread.
inline constexpr int64_t parallel_threshold = 1 << 15;

} // namespace actorflow::ops::cpu
