// Turns the engine's statuses into Python exceptions (actorflow.errors).
#pragma once

#include <stdexcept>

#include <nanobind/nanobind.h>

#include "actorflow/core/status.hpp"

namespace actorflow::python {

/// A failed status on its way to Python, where it becomes the exception
/// class of its code in `actorflow.errors` (InvalidArgumentError, ...),
/// with the node, op and device as attributes.
class status_error : public std::runtime_error {
public:
  explicit status_error(core::status st);

  const core::status& status() const noexcept {
    return status_;
  }

private:
  core::status status_;
};

/// Throws `status_error` unless `st` is ok.
void throw_if_error(const core::status& st);

/// Registers the translation of `status_error` into Python exceptions.
void bind_errors(nanobind::module_& m);

} // namespace actorflow::python
