#pragma once

/// Op functions for the C++ builder API: one per op of the spine's kernel
/// set. Each takes the scope to build in first. The operators take none:
/// they build in the graph's current scope (`scope::current`, set by a
/// `scope_guard` or by the `cond` branch or loop body being built), and
/// every node goes into the region of control flow being built.

#include <cstdint>
#include <string>
#include <type_traits>

#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// A constant holding `value`.
output constant(const scope& s, core::tensor value);

/// A scalar constant of dtype `type`.
output constant(const scope& s, double value, core::dtype type);

/// A scalar constant typed as TensorFlow types a Python value: `bool` is
/// bool, integers of up to 32 bits int32 (`constant(s, 1)`), wider ones
/// int64 (`int64_t{1}`), and `float` and `double` float32
/// (`constant(s, 0.5)`); pass a dtype for anything else.
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
output constant(const scope& s, T value) {
  if constexpr (std::is_same_v<T, bool>)
    return constant(s, value ? 1.0 : 0.0, core::dtype::bool_);
  else if constexpr (std::is_floating_point_v<T>)
    return constant(s, static_cast<double>(value), core::dtype::float32);
  else if constexpr (sizeof(T) <= 4)
    return constant(s, static_cast<double>(value), core::dtype::int32);
  else
    return constant(s, core::tensor::scalar(static_cast<int64_t>(value)));
}

/// A value fed at run time.
output placeholder(const scope& s, core::dtype type,
                   core::shape shape = core::shape::unknown());

/// A persistent variable of `shape` in container `container`; its name is
/// the scope's prefix (or "Variable").
output variable(const scope& s, core::shape shape, core::dtype type,
                const std::string& container = "");

/// A variable of `initial`'s dtype and (fully known) shape, set to
/// `initial` by the graph's initializer (`scope::initializer()`).
output variable(const scope& s, const output& initial,
                const std::string& container = "");

output identity(const scope& s, const output& x);

/// `x`, through which `gradients` sends no gradient.
output stop_gradient(const scope& s, const output& x);
operation no_op(const scope& s);

output add(const scope& s, const output& x, const output& y);
output sub(const scope& s, const output& x, const output& y);
output mul(const scope& s, const output& x, const output& y);

struct matmul_options {
  bool transpose_a = false;
  bool transpose_b = false;
};

output matmul(const scope& s, const output& a, const output& b,
              matmul_options options = {});
output relu(const scope& s, const output& x);

/// var = value; returns the variable's reference.
output assign(const scope& s, const output& var, const output& value,
              bool use_locking = true);
output assign_add(const scope& s, const output& var, const output& value,
                  bool use_locking = false);
output assign_sub(const scope& s, const output& var, const output& value,
                  bool use_locking = false);

/// Element-wise operators with broadcasting, as TensorFlow's: `+` Add,
/// `-` Sub and Neg, `*` Mul, `/` Div (floats divide, integers truncate as
/// in C++), comparisons Less, LessEqual, Greater, GreaterEqual, Equal,
/// NotEqual (bool results), `&&` LogicalAnd and `||` LogicalOr (bool
/// operands; both sides are always built).
output operator+(const output& x, const output& y);
output operator-(const output& x, const output& y);
output operator*(const output& x, const output& y);
output operator/(const output& x, const output& y);
output operator-(const output& x);
output operator<(const output& x, const output& y);
output operator<=(const output& x, const output& y);
output operator>(const output& x, const output& y);
output operator>=(const output& x, const output& y);
output operator==(const output& x, const output& y);
output operator!=(const output& x, const output& y);
output operator&&(const output& x, const output& y);
output operator||(const output& x, const output& y);

} // namespace actorflow::graph
