#pragma once

#include <memory>

#include "actorflow/core/tensor.hpp"
#include "actorflow/ops/variable.hpp"

namespace actorflow::ops {

/// A value flowing along one edge: a tensor, or a reference to a variable
/// (for ops such as Assign that take their input by reference).
struct entry {
  core::tensor value;
  std::shared_ptr<variable> ref;

  /// Returns the tensor this entry stands for: the value itself, or the
  /// variable's current value (which may fail if it is uninitialised).
  core::status read(core::tensor* out) const {
    if (ref)
      return ref->read(out);
    *out = value;
    return core::status::ok();
  }
};

} // namespace actorflow::ops
