#pragma once

// Internal: one function per op family, called by register_ops.

#include "actorflow/ops/op_registry.hpp"

namespace actorflow::ops::defs {

core::status register_array_ops(op_registry& r);
core::status register_array_transform_ops(op_registry& r);
core::status register_math_ops(op_registry& r);
core::status register_nn_ops(op_registry& r);
core::status register_image_ops(op_registry& r);
core::status register_volume_ops(op_registry& r);
core::status register_batch_norm_ops(op_registry& r);
core::status register_random_ops(op_registry& r);
core::status register_control_flow_ops(op_registry& r);
core::status register_state_ops(op_registry& r);
core::status register_resource_variable_ops(op_registry& r);
core::status register_list_ops(op_registry& r);
core::status register_training_ops(op_registry& r);
core::status register_io_ops(op_registry& r);
core::status register_string_ops(op_registry& r);
core::status register_summary_ops(op_registry& r);
core::status register_data_flow_ops(op_registry& r);
core::status register_dispatch_ops(op_registry& r);
core::status register_collective_ops(op_registry& r);
core::status register_nd_ops(op_registry& r);
core::status register_tensor_array_ops(op_registry& r);
core::status register_grad_ops(op_registry& r);
core::status register_runtime_ops(op_registry& r);

} // namespace actorflow::ops::defs
