#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

core::status matmul_shape(shape_context& ctx) {
  const auto& a = ctx.input(0);
  const auto& b = ctx.input(1);
  bool ta = ctx.attr_or("transpose_a", false);
  bool tb = ctx.attr_or("transpose_b", false);
  for (const auto* s : {&a, &b})
    if (s->known_rank() && s->rank() != 2)
      return core::invalid_argument_error("MatMul needs rank-2 inputs, got ",
                                          a.to_string(), " and ",
                                          b.to_string());
  int64_t m = -1, k1 = -1, k2 = -1, n = -1;
  if (a.known_rank()) {
    m = a.dim(ta ? 1 : 0);
    k1 = a.dim(ta ? 0 : 1);
  }
  if (b.known_rank()) {
    k2 = b.dim(tb ? 1 : 0);
    n = b.dim(tb ? 0 : 1);
  }
  if (k1 >= 0 && k2 >= 0 && k1 != k2)
    return core::invalid_argument_error(
      "MatMul inner dimensions differ: ", a.to_string(),
      ta ? " (transposed)" : "", " times ", b.to_string(),
      tb ? " (transposed)" : "");
  ctx.set_output(0, core::shape{m, n});
  return core::status::ok();
}

} // namespace

core::status register_math_ops(op_registry& r) {
  // Element-wise unary math: floating point only, or any signed number.
  for (const char* name : {"Exp", "Log", "Log1p", "Sqrt", "Rsqrt", "Floor",
                           "Ceil", "Round", "Tanh", "Sigmoid"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("x: T")
                                      .output("y: T")
                                      .attr("T: {float, double}")
                                      .shape_fn(unchanged_shape)));
  for (const char* name : {"Div", "Pow"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("x: T")
                                      .input("y: T")
                                      .output("z: T")
                                      .attr("T: {float, double}")
                                      .shape_fn(broadcast_shape)));
  for (const char* name : {"Maximum", "Minimum"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("x: T")
                                      .input("y: T")
                                      .output("z: T")
                                      .attr("T: {float, double, int32, int64}")
                                      .shape_fn(broadcast_shape)));
  for (const char* name : {"Greater", "GreaterEqual", "Less", "LessEqual"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("x: T")
                                      .input("y: T")
                                      .output("z: bool")
                                      .attr("T: {float, double, int32, int64}")
                                      .shape_fn(broadcast_shape)));
  for (const char* name : {"Equal", "NotEqual"})
    ACTORFLOW_RETURN_IF_ERROR(
      r.add(op_def_builder(name)
              .input("x: T")
              .input("y: T")
              .output("z: bool")
              .attr("T: {float, double, int32, int64, bool}")
              .shape_fn(broadcast_shape)));
  for (const char* name : {"LogicalAnd", "LogicalOr"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("x: bool")
                                      .input("y: bool")
                                      .output("z: bool")
                                      .shape_fn(broadcast_shape)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("LogicalNot")
                                    .input("x: bool")
                                    .output("y: bool")
                                    .shape_fn(unchanged_shape)));
  for (const char* name : {"Neg", "Abs", "Sign", "Square"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("x: T")
                                      .output("y: T")
                                      .attr("T: {float, double, int32, int64}")
                                      .shape_fn(unchanged_shape)));
  for (const char* name : {"Add", "Sub", "Mul"})
    ACTORFLOW_RETURN_IF_ERROR(
      r.add(op_def_builder(name)
              .input("x: T")
              .input("y: T")
              .output("z: T")
              .attr("T: {float16, bfloat16, float, double, int32, int64}")
              .shape_fn(broadcast_shape)));
  return r.add(op_def_builder("MatMul")
                 .input("a: T")
                 .input("b: T")
                 .output("product: T")
                 .attr("T: {float, double, int32, int64}")
                 .attr("transpose_a: bool = false")
                 .attr("transpose_b: bool = false")
                 .shape_fn(matmul_shape));
}

} // namespace actorflow::ops::defs
