// Converts op attributes between Python values and the engine's attr_value.
#pragma once

#include <nanobind/nanobind.h>

#include "actorflow/core/attr_value.hpp"
#include "actorflow/ops/op_def.hpp"

namespace actorflow::python {

/// Converts the Python values of `attrs` into the types `op` declares for
/// them: ints, floats, bools, strings, dtypes (by name), shapes (None or a
/// list with None for unknown dimensions), tensors (arrays, copied) and
/// lists of these. Names `op` lacks pass as given when they start with '_',
/// and are refused otherwise.
core::attr_map to_attrs(const ops::op_def& op, nanobind::dict attrs);

/// Returns `s` as Python sees a shape: None for an unknown rank, else a
/// list with None for each unknown dimension.
nanobind::object from_shape(const core::shape& s);

/// Returns `value` as Python sees it (the inverse of `to_attrs`).
nanobind::object from_attr(const core::attr_value& value);

} // namespace actorflow::python
