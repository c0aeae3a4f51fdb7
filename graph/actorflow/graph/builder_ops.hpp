#pragma once

/// Op functions for the C++ builder API: one per op of the spine's kernel
/// set. Each takes the scope to build in first; the arithmetic operators
/// build in the scope of their left operand.

#include <string>

#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// A constant holding `value`.
output constant(const scope& s, core::tensor value);

/// A float32 (or the given dtype) scalar constant.
output constant(const scope& s, double value,
                core::dtype type = core::dtype::float32);

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

output operator+(const output& x, const output& y);
output operator-(const output& x, const output& y);
output operator*(const output& x, const output& y);

} // namespace actorflow::graph
