#pragma once

// Internal: what the built-in gradient functions share.

#include <vector>

#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/gradient_registry.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph::detail {

/// Whether gradients flow along tensors of `type`: floating-point ones,
/// and variant ones (TensorLists, whose gradients are lists too).
inline bool carries_gradient(core::dtype type) {
  return core::is_floating(type) || type == core::dtype::variant;
}

/// The value of `x` if a Const node makes it, else nullptr.
const core::tensor* constant_value(const scope& s, const output& x);

/// The values of an int32/int64 constant `x`; false if `x` is not one.
bool constant_ints(const scope& s, const output& x, std::vector<int64_t>* out);

/// An int32 vector constant.
output int32_vector(const scope& s, const std::vector<int64_t>& values);

/// The error of a gradient function that needs `what` (a constant, a
/// known rank) of `op`, naming the node and its op.
core::status needs_constant(const gradient_op& op, const char* what);

/// `x` summed over the axes held by `axes` (a tensor).
output sum_over(const scope& s, const output& x, const output& axes,
                bool keep_dims = false);

/// `g` summed over the axes along which `x` was broadcast to g's shape,
/// with x's shape: the gradient of x in a broadcasting op.
output sum_to(const scope& s, const output& g, const output& x);

/// For a reduction of input `x` over the constant axes of `op` (input 1),
/// `g` with the reduced axes kept as size 1 (`*kept`) and its shape
/// (`*kept_shape`); fails unless the axes are constant and x's rank known.
core::status keep_reduced_dims(const scope& s, const gradient_op& op,
                               const output& g, output* kept,
                               output* kept_shape);

/// `g`, of a reduction of `x` kept as size-1 axes, repeated to x's shape.
output broadcast_back(const scope& s, const output& kept, const output& x,
                      const output& kept_shape);

void register_math_gradients(gradient_registry& r);
void register_array_gradients(gradient_registry& r);
void register_dispatch_gradients(gradient_registry& r);
void register_nn_gradients(gradient_registry& r);
void register_control_flow_gradients(gradient_registry& r);
void register_tensor_array_gradients(gradient_registry& r);
void register_list_gradients(gradient_registry& r);

} // namespace actorflow::graph::detail
