#pragma once

// Internal: the variable a resource handle (VarHandleOp's output) names.

#include <cstddef>
#include <memory>

#include "actorflow/core/status.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/resource_manager.hpp"
#include "actorflow/ops/variable.hpp"

namespace actorflow::ops::cpu {

/// The variable behind the handle in input `input` of `ctx`, in
/// `resources`: created uninitialised when `create` holds and it does not
/// exist yet, otherwise not_found; another dtype than `type` is an error
/// naming both.
core::status variable_of(kernel_context& ctx, size_t input,
                         resource_manager& resources, core::dtype type,
                         bool create, std::shared_ptr<variable>* out);

} // namespace actorflow::ops::cpu
