#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "actorflow/core/dtype.hpp"
#include "actorflow/core/shape.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::core {

/// The value of a node attribute: a scalar or a list of int, float, bool,
/// string, dtype, shape or tensor.
using attr_value
  = std::variant<int64_t, double, bool, std::string, dtype, shape, tensor,
                 std::vector<int64_t>, std::vector<double>, std::vector<bool>,
                 std::vector<std::string>, std::vector<dtype>,
                 std::vector<shape>, std::vector<tensor>>;

/// Attribute names to values, ordered so that serialisation is
/// deterministic.
using attr_map = std::map<std::string, attr_value>;

/// The name of an attribute type as op specs write it: "int", "float",
/// "bool", "string", "type", "shape", "tensor", "list(int)", ...
std::string attr_type_name(const attr_value& x);

/// Renders a value for error messages.
std::string to_string(const attr_value& x);

/// Returns whether two values are equal (tensors by content).
bool attr_equal(const attr_value& x, const attr_value& y);

} // namespace actorflow::core
