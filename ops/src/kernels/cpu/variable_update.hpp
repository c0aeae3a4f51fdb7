#pragma once

// Internal: var += delta (or -=), shared by the reference variables'
// AssignAdd/AssignSub and the resource variables' AssignAdd/SubVariableOp.

#include <memory>

#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/core/allocator.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/ops/variable.hpp"

namespace actorflow::ops::cpu {

/// Adds `delta` to (or with `Subtract` takes it from) `value`, variable
/// `var`'s, held under its lock or privately: in place when nobody else
/// holds the buffer, otherwise on a copy made with `alloc` (the host's
/// when null). An uninitialised value or another shape is an error naming
/// the variable.
template <class T, bool Subtract>
core::status update_variable_value(const variable& var, core::tensor& value,
                                   const core::tensor& delta,
                                   const std::shared_ptr<core::allocator>& alloc
                                   = nullptr) {
  if (!value.valid())
    return core::failed_precondition_error(
      "attempting to use uninitialized value ", var.name());
  if (value.shape() != delta.shape())
    return core::invalid_argument_error("cannot update variable ", var.name(),
                                        " of shape ", value.shape().to_string(),
                                        " with a value of shape ",
                                        delta.shape().to_string());
  if (!value.unique()) {
    core::tensor copy;
    ACTORFLOW_RETURN_IF_ERROR(value.deep_copy(&copy, alloc));
    value = std::move(copy);
  }
  auto z = value.mutable_flat<T>();
  if constexpr (Subtract)
    z -= delta.flat<T>();
  else
    z += delta.flat<T>();
  return core::status::ok();
}

} // namespace actorflow::ops::cpu
