#include "actorflow/graph/builder_ops.hpp"

#include "actorflow/graph/math_ops.hpp"

namespace actorflow::graph {

namespace {

output first(std::vector<output> outs) {
  return outs.empty() ? output{} : std::move(outs.front());
}

output unary(const scope& s, const char* op, const output& x) {
  return first(s.add_node(op, op, {x}, {{"T", x.dtype()}}));
}

output binary(const scope& s, const char* op, const output& x,
              const output& y) {
  return first(s.add_node(op, op, {x, y}, {{"T", x.dtype()}}));
}

output update(const scope& s, const char* op, const output& var,
              const output& value, bool use_locking) {
  return first(s.add_node(op, op, {var, value},
                          {{"T", var.dtype()}, {"use_locking", use_locking}}));
}

} // namespace

output constant(const scope& s, core::tensor value) {
  auto type = value.dtype();
  return first(s.add_node("Const", "Const", {},
                          {{"value", std::move(value)}, {"dtype", type}}));
}

output constant(const scope& s, double value, core::dtype type) {
  core::tensor t{type, core::shape{}};
  core::visit_dtype(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<
                    T, std::complex<
                         float>> || std::is_same_v<T, std::complex<double>>)
      *t.mutable_data<T>() = T(static_cast<typename T::value_type>(value));
    else if constexpr (!std::is_same_v<T, std::string>)
      *t.mutable_data<T>() = static_cast<T>(value);
  });
  return constant(s, std::move(t));
}

output placeholder(const scope& s, core::dtype type, core::shape shape) {
  return first(s.add_node("Placeholder", "", {},
                          {{"dtype", type}, {"shape", std::move(shape)}}));
}

output variable(const scope& s, core::shape shape, core::dtype type,
                const std::string& container) {
  return first(s.add_node(
    "VariableV2", "", {},
    {{"dtype", type}, {"shape", std::move(shape)}, {"container", container}}));
}

output variable(const scope& s, const output& initial,
                const std::string& container) {
  if (!initial.valid())
    return {};
  if (!initial.shape().fully_defined()) {
    s.record_error(core::invalid_argument_error(
      "the initial value of variable '", s.unique_name(""),
      "' needs a fully known shape, got ", initial.shape().to_string()));
    return {};
  }
  auto v = variable(s, initial.shape(), initial.dtype(), container);
  if (v.valid())
    s.add_initializer(assign(s.sub("init"), v, initial).op());
  return v;
}

output identity(const scope& s, const output& x) {
  return unary(s, "Identity", x);
}

output stop_gradient(const scope& s, const output& x) {
  return unary(s, "StopGradient", x);
}

operation no_op(const scope& s) {
  return s.add_operation("NoOp", "NoOp", {}, {});
}

output add(const scope& s, const output& x, const output& y) {
  return binary(s, "Add", x, y);
}

output sub(const scope& s, const output& x, const output& y) {
  return binary(s, "Sub", x, y);
}

output mul(const scope& s, const output& x, const output& y) {
  return binary(s, "Mul", x, y);
}

output matmul(const scope& s, const output& a, const output& b,
              matmul_options options) {
  return first(s.add_node("MatMul", "MatMul", {a, b},
                          {{"T", a.dtype()},
                           {"transpose_a", options.transpose_a},
                           {"transpose_b", options.transpose_b}}));
}

output relu(const scope& s, const output& x) {
  return unary(s, "Relu", x);
}

output assign(const scope& s, const output& var, const output& value,
              bool use_locking) {
  return first(s.add_node("Assign", "Assign", {var, value},
                          {{"T", var.dtype()}, {"use_locking", use_locking}}));
}

output assign_add(const scope& s, const output& var, const output& value,
                  bool use_locking) {
  return update(s, "AssignAdd", var, value, use_locking);
}

output assign_sub(const scope& s, const output& var, const output& value,
                  bool use_locking) {
  return update(s, "AssignSub", var, value, use_locking);
}

namespace {

/// `fn` in the current scope of the operands' graph; with an invalid
/// operand `fn` records the error (unless neither knows its graph).
template <class Fn>
output in_current(const output& x, const output& y, Fn fn) {
  const auto& known = x.valid() ? x : y;
  if (!known.valid())
    return {};
  return fn(scope::current(known), x, y);
}

} // namespace

output operator+(const output& x, const output& y) {
  return in_current(x, y, add);
}

output operator-(const output& x, const output& y) {
  return in_current(x, y, sub);
}

output operator*(const output& x, const output& y) {
  return in_current(x, y, mul);
}

output operator/(const output& x, const output& y) {
  return in_current(x, y, div);
}

output operator-(const output& x) {
  return x.valid() ? neg(scope::current(x), x) : output{};
}

output operator<(const output& x, const output& y) {
  return in_current(x, y, less);
}

output operator<=(const output& x, const output& y) {
  return in_current(x, y, less_equal);
}

output operator>(const output& x, const output& y) {
  return in_current(x, y, greater);
}

output operator>=(const output& x, const output& y) {
  return in_current(x, y, greater_equal);
}

output operator==(const output& x, const output& y) {
  return in_current(x, y, equal);
}

output operator!=(const output& x, const output& y) {
  return in_current(x, y, not_equal);
}

output operator&&(const output& x, const output& y) {
  return in_current(x, y, logical_and);
}

output operator||(const output& x, const output& y) {
  return in_current(x, y, logical_or);
}

} // namespace actorflow::graph
