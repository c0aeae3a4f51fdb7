#pragma once

#include <mutex>
#include <string>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::ops {

/// A persistent, mutable tensor that outlives steps: the state behind a
/// Variable node.
///
/// Reads take a snapshot handle under the lock. Writers replace the value,
/// or update it in place only when nobody else holds its buffer, so a value
/// handed to a consumer never changes.
class variable {
public:
  variable(std::string name, core::dtype type, core::shape declared);

  const std::string& name() const noexcept {
    return name_;
  }

  core::dtype dtype() const noexcept {
    return type_;
  }

  const core::shape& declared_shape() const noexcept {
    return declared_;
  }

  /// Returns the current value; `failed_precondition` naming the variable
  /// when it was never assigned.
  core::status read(core::tensor* out) const;

  bool initialized() const;

  /// The variable's lock; writers with `use_locking` hold it while updating.
  std::mutex& mutex() const noexcept {
    return mtx_;
  }

  /// Returns the value handle; requires holding `mutex()`.
  core::tensor& value_locked() noexcept {
    return value_;
  }

private:
  std::string name_;
  core::dtype type_;
  core::shape declared_;
  mutable std::mutex mtx_;
  core::tensor value_;
};

/// The handle of variable `name` in `container` as resource variables pass
/// it around (VarHandleOp's output, a scalar string).
std::string variable_handle(const std::string& container,
                            const std::string& name);

/// Splits a handle made by `variable_handle`; false if `handle` is none.
bool parse_variable_handle(const std::string& handle, std::string* container,
                           std::string* name);

} // namespace actorflow::ops
