#include "actorflow/graph/math_ops.hpp"

#include "builder_util.hpp"

namespace actorflow::graph {

using detail::typed;

#define ACTORFLOW_UNARY(fn, op)                                                \
  output fn(const scope& s, const output& x) {                                 \
    return typed(s, op, {x});                                                  \
  }

#define ACTORFLOW_BINARY(fn, op)                                               \
  output fn(const scope& s, const output& x, const output& y) {                \
    return typed(s, op, {x, y});                                               \
  }

ACTORFLOW_UNARY(neg, "Neg")
ACTORFLOW_UNARY(abs, "Abs")
ACTORFLOW_UNARY(sign, "Sign")
ACTORFLOW_UNARY(square, "Square")
ACTORFLOW_UNARY(exp, "Exp")
ACTORFLOW_UNARY(log, "Log")
ACTORFLOW_UNARY(log1p, "Log1p")
ACTORFLOW_UNARY(sqrt, "Sqrt")
ACTORFLOW_UNARY(rsqrt, "Rsqrt")
ACTORFLOW_UNARY(floor, "Floor")
ACTORFLOW_UNARY(ceil, "Ceil")
ACTORFLOW_UNARY(round, "Round")
ACTORFLOW_UNARY(tanh, "Tanh")
ACTORFLOW_UNARY(sigmoid, "Sigmoid")
ACTORFLOW_UNARY(erf, "Erf")
ACTORFLOW_UNARY(erfc, "Erfc")
ACTORFLOW_BINARY(div, "Div")
ACTORFLOW_BINARY(floor_div, "FloorDiv")
ACTORFLOW_BINARY(mod, "Mod")
ACTORFLOW_BINARY(floor_mod, "FloorMod")
ACTORFLOW_BINARY(pow, "Pow")
ACTORFLOW_BINARY(maximum, "Maximum")
ACTORFLOW_BINARY(minimum, "Minimum")
ACTORFLOW_BINARY(greater, "Greater")
ACTORFLOW_BINARY(greater_equal, "GreaterEqual")
ACTORFLOW_BINARY(less, "Less")
ACTORFLOW_BINARY(less_equal, "LessEqual")
ACTORFLOW_BINARY(equal, "Equal")
ACTORFLOW_BINARY(not_equal, "NotEqual")

#undef ACTORFLOW_UNARY
#undef ACTORFLOW_BINARY

output select_v2(const scope& s, const output& condition, const output& t,
                 const output& e) {
  return detail::first(
    s.add_node("SelectV2", "SelectV2", {condition, t, e}, {{"T", t.dtype()}}));
}

namespace {

output scan(const scope& s, const char* op, const output& x, int64_t axis,
            bool exclusive, bool reverse) {
  auto a = detail::int_constant(s, std::string{op} + "/axis", {axis}, true,
                                core::dtype::int32);
  return typed(s, op, {x, a},
               {{"Tidx", core::dtype::int32},
                {"exclusive", exclusive},
                {"reverse", reverse}});
}

} // namespace

output cumsum(const scope& s, const output& x, int64_t axis, bool exclusive,
              bool reverse) {
  return scan(s, "Cumsum", x, axis, exclusive, reverse);
}

output cumprod(const scope& s, const output& x, int64_t axis, bool exclusive,
               bool reverse) {
  return scan(s, "Cumprod", x, axis, exclusive, reverse);
}

output logical_not(const scope& s, const output& x) {
  return detail::first(s.add_node("LogicalNot", "LogicalNot", {x}, {}));
}

output logical_and(const scope& s, const output& x, const output& y) {
  return detail::first(s.add_node("LogicalAnd", "LogicalAnd", {x, y}, {}));
}

output logical_or(const scope& s, const output& x, const output& y) {
  return detail::first(s.add_node("LogicalOr", "LogicalOr", {x, y}, {}));
}

output select(const scope& s, const output& condition, const output& t,
              const output& e) {
  return detail::first(
    s.add_node("Select", "Select", {condition, t, e}, {{"T", t.dtype()}}));
}

output cast(const scope& s, const output& x, core::dtype to) {
  return detail::first(
    s.add_node("Cast", "Cast", {x}, {{"SrcT", x.dtype()}, {"DstT", to}}));
}

output add_n(const scope& s, const std::vector<output>& xs) {
  return typed(s, "AddN", xs, {{"N", static_cast<int64_t>(xs.size())}});
}

namespace {

output reduce(const scope& s, const char* op, const output& x,
              const std::vector<int64_t>& axes, bool keep_dims) {
  auto a = detail::int_constant(s, std::string{op} + "/axes", axes);
  core::attr_map attrs{{"keep_dims", keep_dims}, {"Tidx", core::dtype::int64}};
  if (x.dtype() != core::dtype::bool_)
    attrs.emplace("T", x.dtype());
  return detail::first(s.add_node(op, op, {x, a}, std::move(attrs)));
}

output arg(const scope& s, const char* op, const output& x, int64_t axis,
           core::dtype output_type) {
  auto a = detail::int_constant(s, std::string{op} + "/axis", {axis}, true);
  return typed(s, op, {x, a},
               {{"Tidx", core::dtype::int64}, {"output_type", output_type}});
}

} // namespace

#define ACTORFLOW_REDUCTION(fn, op)                                            \
  output fn(const scope& s, const output& x, const std::vector<int64_t>& axes, \
            bool keep_dims) {                                                  \
    return reduce(s, op, x, axes, keep_dims);                                  \
  }

ACTORFLOW_REDUCTION(reduce_sum, "Sum")
ACTORFLOW_REDUCTION(reduce_mean, "Mean")
ACTORFLOW_REDUCTION(reduce_max, "Max")
ACTORFLOW_REDUCTION(reduce_min, "Min")
ACTORFLOW_REDUCTION(reduce_prod, "Prod")
ACTORFLOW_REDUCTION(reduce_all, "All")
ACTORFLOW_REDUCTION(reduce_any, "Any")

#undef ACTORFLOW_REDUCTION

output arg_max(const scope& s, const output& x, int64_t axis,
               core::dtype output_type) {
  return arg(s, "ArgMax", x, axis, output_type);
}

output arg_min(const scope& s, const output& x, int64_t axis,
               core::dtype output_type) {
  return arg(s, "ArgMin", x, axis, output_type);
}

output batch_matmul(const scope& s, const output& x, const output& y,
                    bool adj_x, bool adj_y) {
  return typed(s, "BatchMatMulV2", {x, y},
               {{"adj_x", adj_x}, {"adj_y", adj_y}});
}

output matrix_inverse(const scope& s, const output& x, bool adjoint) {
  return typed(s, "MatrixInverse", {x}, {{"adjoint", adjoint}});
}

output matrix_determinant(const scope& s, const output& x) {
  return typed(s, "MatrixDeterminant", {x});
}

output check_numerics(const scope& s, const output& x,
                      const std::string& message) {
  return typed(s, "CheckNumerics", {x}, {{"message", message}});
}

} // namespace actorflow::graph
