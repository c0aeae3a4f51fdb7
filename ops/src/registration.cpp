#include "actorflow/ops/registration.hpp"

#include <cblas.h>

#include "defs/defs.hpp"
#include "kernels/cpu/kernels.hpp"

namespace actorflow::ops {

core::status register_ops(op_registry& registry) {
  ACTORFLOW_RETURN_IF_ERROR(defs::register_array_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_math_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_nn_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_image_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_volume_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_batch_norm_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_random_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_control_flow_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_state_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_resource_variable_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_list_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_training_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_io_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_string_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_summary_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_data_flow_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_dispatch_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_collective_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_nd_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_tensor_array_ops(registry));
  ACTORFLOW_RETURN_IF_ERROR(defs::register_grad_ops(registry));
  return defs::register_runtime_ops(registry);
}

void register_cpu_kernels(kernel_registry& registry) {
  cpu::register_array_kernels(registry);
  cpu::register_binary_kernels(registry);
  cpu::register_matmul_kernels(registry);
  cpu::register_state_kernels(registry);
  cpu::register_resource_variable_kernels(registry);
  cpu::register_list_kernels(registry);
  cpu::register_training_kernels(registry);
  cpu::register_io_kernels(registry);
  cpu::register_bundle_kernels(registry);
  cpu::register_string_kernels(registry);
  cpu::register_summary_kernels(registry);
  cpu::register_queue_kernels(registry);
  cpu::register_tensor_array_kernels(registry);
  cpu::register_dispatch_kernels(registry);
  cpu::register_collective_kernels(registry);
  cpu::register_segment_kernels(registry);
  cpu::register_nd_kernels(registry);
  cpu::register_broadcast_kernels(registry);
  cpu::register_scan_kernels(registry);
  cpu::register_grad_kernels(registry);
  cpu::register_unary_kernels(registry);
  cpu::register_cast_select_kernels(registry);
  cpu::register_reduction_kernels(registry);
  cpu::register_shape_kernels(registry);
  cpu::register_transform_kernels(registry);
  cpu::register_concat_kernels(registry);
  cpu::register_nn_kernels(registry);
  cpu::register_conv_kernels(registry);
  cpu::register_depthwise_conv_kernels(registry);
  cpu::register_fused_conv_kernels(registry);
  cpu::register_einsum_kernels(registry);
  cpu::register_resize_kernels(registry);
  cpu::register_space_batch_kernels(registry);
  cpu::register_volume_kernels(registry);
  cpu::register_batch_norm_kernels(registry);
  cpu::register_pool_kernels(registry);
  cpu::register_random_kernels(registry);
  cpu::register_linalg_kernels(registry);
  cpu::register_control_flow_kernels(registry);
}

void configure_cpu_blas() {
  openblas_set_num_threads(1);
}

} // namespace actorflow::ops
