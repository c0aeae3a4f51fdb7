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

/// Declares element-wise ops `names` with `arity` inputs of the type in
/// `input` (an attr name with its allowed dtypes in `type_attr`, or a fixed
/// dtype) and one output of type `output`.
core::status add_elementwise(op_registry& r,
                             std::initializer_list<const char*> names,
                             int arity, const char* type_attr,
                             const char* output = "T") {
  for (const char* name : names) {
    op_def_builder b{name};
    auto in = type_attr[0] == '{' ? std::string{"T"} : std::string{type_attr};
    b.input("x: " + in);
    if (arity == 2)
      b.input("y: " + in);
    b.output(std::string{"z: "} + (output[0] == 'T' ? in.c_str() : output));
    if (type_attr[0] == '{')
      b.attr(std::string{"T: "} + type_attr);
    b.shape_fn(arity == 2 ? broadcast_shape : unchanged_shape);
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  }
  return core::status::ok();
}

/// Shape function of reductions: the axes are a run-time input, so only
/// the rank is known, and only with keep_dims.
core::status reduction_shape(shape_context& ctx) {
  const auto& in = ctx.input(0);
  if (ctx.attr_or("keep_dims", false) && in.known_rank())
    ctx.set_output(
      0, core::shape{std::vector<int64_t>(static_cast<size_t>(in.rank()), -1)});
  else
    ctx.set_output(0, core::shape::unknown());
  return core::status::ok();
}

} // namespace

core::status register_math_ops(op_registry& r) {
  for (const char* name : {"Sum", "Mean", "Max", "Min", "Prod"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("input: T")
                                      .input("reduction_indices: Tidx")
                                      .output("output: T")
                                      .attr("keep_dims: bool = false")
                                      .attr("T: {float, double, int32, int64}")
                                      .attr("Tidx: {int32, int64} = int32")
                                      .shape_fn(reduction_shape)));
  const char* floats = "{float, double}";
  const char* numbers = "{float, double, int32, int64}";
  ACTORFLOW_RETURN_IF_ERROR(
    add_elementwise(r, {"Add", "Sub", "Mul"}, 2,
                    "{float16, bfloat16, float, double, int32, int64}"));
  ACTORFLOW_RETURN_IF_ERROR(add_elementwise(r, {"Div", "Pow"}, 2, floats));
  ACTORFLOW_RETURN_IF_ERROR(
    add_elementwise(r, {"Maximum", "Minimum"}, 2, numbers));
  ACTORFLOW_RETURN_IF_ERROR(add_elementwise(
    r, {"Greater", "GreaterEqual", "Less", "LessEqual"}, 2, numbers, "bool"));
  ACTORFLOW_RETURN_IF_ERROR(
    add_elementwise(r, {"Equal", "NotEqual"}, 2,
                    "{float, double, int32, int64, bool}", "bool"));
  ACTORFLOW_RETURN_IF_ERROR(
    add_elementwise(r, {"LogicalAnd", "LogicalOr"}, 2, "bool"));
  ACTORFLOW_RETURN_IF_ERROR(add_elementwise(r, {"LogicalNot"}, 1, "bool"));
  ACTORFLOW_RETURN_IF_ERROR(
    add_elementwise(r, {"Neg", "Abs", "Sign", "Square"}, 1, numbers));
  ACTORFLOW_RETURN_IF_ERROR(
    add_elementwise(r,
                    {"Exp", "Log", "Log1p", "Sqrt", "Rsqrt", "Floor", "Ceil",
                     "Round", "Tanh", "Sigmoid"},
                    1, floats));
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
