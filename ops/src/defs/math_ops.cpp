#include "defs.hpp"

#include "../einsum_equation.hpp"
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

/// Shape function of reductions: known when the axes are constant;
/// otherwise only the rank, and only with keep_dims.
core::status reduction_shape(shape_context& ctx) {
  const auto& in = ctx.input(0);
  bool keep_dims = ctx.attr_or("keep_dims", false);
  std::vector<int64_t> axes;
  core::shape out = core::shape::unknown();
  if (ctx.input_ints(1, &axes))
    ACTORFLOW_RETURN_IF_ERROR(reduced_shape(in, axes, keep_dims, &out));
  else if (keep_dims && in.known_rank())
    out = core::shape{std::vector<int64_t>(static_cast<size_t>(in.rank()), -1)};
  ctx.set_output(0, std::move(out));
  return core::status::ok();
}

/// ArgMax/ArgMin: the input without the axis.
core::status arg_reduction_shape(shape_context& ctx) {
  std::vector<int64_t> axis;
  core::shape out = core::shape::unknown();
  if (ctx.input_ints(1, &axis) && axis.size() == 1)
    ACTORFLOW_RETURN_IF_ERROR(reduced_shape(ctx.input(0), axis, false, &out));
  else if (ctx.input(0).known_rank() && ctx.input(0).rank() > 0)
    out = core::shape{
      std::vector<int64_t>(static_cast<size_t>(ctx.input(0).rank() - 1), -1)};
  ctx.set_output(0, std::move(out));
  return core::status::ok();
}

/// AddN: every input has one shape.
/// Einsum's output shape, when every operand's rank is known.
core::status einsum_shape(shape_context& ctx) {
  std::string equation;
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("equation", &equation));
  std::vector<int> ranks;
  std::vector<core::shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.input(i).known_rank())
      return core::status::ok();
    shapes.push_back(ctx.input(i));
    ranks.push_back(ctx.input(i).rank());
  }
  detail::einsum_equation eq;
  ACTORFLOW_RETURN_IF_ERROR(
    detail::einsum_equation::parse(equation, ranks, &eq));
  if (eq.inputs.size() > 2)
    return core::unimplemented_error("Einsum of ", eq.inputs.size(),
                                     " operands; actorflow takes one or two");
  core::shape out;
  ACTORFLOW_RETURN_IF_ERROR(eq.output_shape(shapes, &out));
  ctx.set_output(0, std::move(out));
  return core::status::ok();
}

core::status add_n_shape(shape_context& ctx) {
  auto s = ctx.input(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (!s.compatible_with(ctx.input(i)))
      return core::invalid_argument_error(
        "AddN needs inputs of one shape; input 0 is ", s.to_string(),
        ", input ", i, " is ", ctx.input(i).to_string());
    s = s.merge(ctx.input(i));
  }
  ctx.set_output(0, std::move(s));
  return core::status::ok();
}

core::status batch_matmul_shape(shape_context& ctx) {
  const auto& x = ctx.input(0);
  const auto& y = ctx.input(1);
  if (!x.known_rank() || !y.known_rank()) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  if (x.rank() < 2 || y.rank() < 2)
    return core::invalid_argument_error("BatchMatMul needs rank >= 2, got ",
                                        x.to_string(), " and ", y.to_string());
  bool ax = ctx.attr_or("adj_x", false), ay = ctx.attr_or("adj_y", false);
  auto m = x.dim(x.rank() - (ax ? 1 : 2)), k = x.dim(x.rank() - (ax ? 2 : 1));
  auto k2 = y.dim(y.rank() - (ay ? 1 : 2)), n = y.dim(y.rank() - (ay ? 2 : 1));
  if (k >= 0 && k2 >= 0 && k != k2)
    return core::invalid_argument_error(
      "BatchMatMul inner dimensions differ: ", x.to_string(), " times ",
      y.to_string());
  auto batch = [](const core::shape& s) {
    return core::shape{
      std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2)};
  };
  core::shape out;
  ACTORFLOW_RETURN_IF_ERROR(broadcast_shapes(batch(x), batch(y), &out));
  auto dims = out.dims();
  dims.push_back(m);
  dims.push_back(n);
  ctx.set_output(0, core::shape{std::move(dims)});
  return core::status::ok();
}

/// MatrixInverse keeps the shape, MatrixDeterminant drops the matrix.
template <bool Determinant>
core::status square_matrix_shape(shape_context& ctx) {
  const auto& in = ctx.input(0);
  if (!in.known_rank()) {
    ctx.set_output(0, core::shape::unknown());
    return core::status::ok();
  }
  auto r = in.rank();
  if (r < 2
      || (in.dim(r - 1) >= 0 && in.dim(r - 2) >= 0
          && in.dim(r - 1) != in.dim(r - 2)))
    return core::invalid_argument_error("input must be a batch of square "
                                        "matrices [..., n, n], got ",
                                        in.to_string());
  if constexpr (Determinant)
    ctx.set_output(0, core::shape{std::vector<int64_t>(in.dims().begin(),
                                                       in.dims().end() - 2)});
  else
    ctx.set_output(0, in);
  return core::status::ok();
}

} // namespace

core::status register_math_ops(op_registry& r) {
  for (bool v2 : {false, true}) {
    op_def_builder b{v2 ? "BatchMatMulV2" : "BatchMatMul"};
    b.input("x: T")
      .input("y: T")
      .output("output: T")
      .attr("T: {float16, bfloat16, float, double}")
      .attr("adj_x: bool = false")
      .attr("adj_y: bool = false")
      .shape_fn(batch_matmul_shape);
    if (v2) // TensorFlow's hints for its own kernels (as MatMul's grad_a)
      b.attr("grad_x: bool = false").attr("grad_y: bool = false");
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  }
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("MatrixInverse")
                                    .input("input: T")
                                    .output("output: T")
                                    .attr("T: {float, double}")
                                    .attr("adjoint: bool = false")
                                    .shape_fn(square_matrix_shape<false>)));
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("MatrixDeterminant")
                                    .input("input: T")
                                    .output("output: T")
                                    .attr("T: {float, double}")
                                    .shape_fn(square_matrix_shape<true>)));
  const char* reducible = "{float, double, int32, int64}";
  for (const char* name : {"Sum", "Mean", "Max", "Min", "Prod", "All", "Any"}) {
    op_def_builder b{name};
    bool logical = name[0] == 'A';
    b.input(logical ? "input: bool" : "input: T")
      .input("reduction_indices: Tidx")
      .output(logical ? "output: bool" : "output: T")
      .attr("keep_dims: bool = false")
      .attr("Tidx: {int32, int64} = int32")
      .shape_fn(reduction_shape);
    if (!logical)
      b.attr(std::string{"T: "} + reducible);
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  }
  for (const char* name : {"ArgMax", "ArgMin"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("input: T")
                                      .input("dimension: Tidx")
                                      .output("output: output_type")
                                      .attr(std::string{"T: "} + reducible)
                                      .attr("Tidx: {int32, int64} = int32")
                                      .attr("output_type: {int32, int64} = "
                                            "int64")
                                      .shape_fn(arg_reduction_shape)));
  // Einstein summation over one or two operands ("bqd,bkd->bqk",
  // "...ij,jk->...ik"): what Keras' MultiHeadAttention and EinsumDense
  // write. A label twice in one operand (a diagonal) is not taken.
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("Einsum")
                                    .input("inputs: N * T")
                                    .output("output: T")
                                    .attr("equation: string")
                                    .attr("N: int")
                                    .attr("T: {float, double}")
                                    .shape_fn(einsum_shape)));
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(op_def_builder("AddN")
            .input("inputs: N * T")
            .output("sum: T")
            .attr("N: int")
            .attr("T: {float16, bfloat16, float, double, int32, int64, "
                  "variant}")
            .shape_fn(add_n_shape)));
  const char* floats = "{float, double}";
  const char* numbers = "{float, double, int32, int64}";
  ACTORFLOW_RETURN_IF_ERROR(
    // AddV2 is TensorFlow 2's Add (what `+` builds in its graphs).
    add_elementwise(r, {"Add", "AddV2", "Sub", "Mul"}, 2,
                    "{float16, bfloat16, float, double, int32, int64}"));
  ACTORFLOW_RETURN_IF_ERROR(add_elementwise(
    r, {"Div", "FloorDiv", "Mod", "FloorMod", "Pow"}, 2, numbers));
  // TensorFlow's float division (what `/` writes for floats), and x / y
  // with 0 where y is 0 (what Keras' GroupNormalization writes).
  ACTORFLOW_RETURN_IF_ERROR(
    add_elementwise(r, {"RealDiv", "DivNoNan"}, 2, floats));
  ACTORFLOW_RETURN_IF_ERROR(
    add_elementwise(r, {"Maximum", "Minimum"}, 2, numbers));
  // (x - y)^2, what tf.math.squared_difference and nn.moments write.
  ACTORFLOW_RETURN_IF_ERROR(add_elementwise(r, {"SquaredDifference"}, 2,
                                            "{float16, bfloat16, float, "
                                            "double, int32, int64}"));
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
                     "Round", "Tanh", "Sigmoid", "Erf", "Erfc"},
                    1, floats));
  // tf.nn.gelu(x, approximate=False) -- 0.5 x erfc(-x / sqrt(2)), five
  // nodes in TensorFlow's graph -- in one kernel: written by the fusion
  // pass, never by users.
  ACTORFLOW_RETURN_IF_ERROR(add_elementwise(r, {"_GeluExact"}, 1, floats));
  // Running sums and products along `axis`; `exclusive` leaves each
  // element out of its own, `reverse` runs from the end.
  for (const char* name : {"Cumsum", "Cumprod"})
    ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder(name)
                                      .input("x: T")
                                      .input("axis: Tidx")
                                      .output("out: T")
                                      .attr(std::string{"T: "} + numbers)
                                      .attr("Tidx: {int32, int64} = int32")
                                      .attr("exclusive: bool = false")
                                      .attr("reverse: bool = false")
                                      .shape_fn(unchanged_shape)));
  ACTORFLOW_RETURN_IF_ERROR(
    r.add(op_def_builder("MatMul")
            .input("a: T")
            .input("b: T")
            .output("product: T")
            .attr("T: {float16, bfloat16, float, double, int32, int64}")
            .attr("transpose_a: bool = false")
            .attr("transpose_b: bool = false")
            // TensorFlow's hints for its own kernels; no effect here.
            .attr("grad_a: bool = false")
            .attr("grad_b: bool = false")
            .shape_fn(matmul_shape)));
  // MatMul, BiasAdd and optionally Relu in one kernel (TensorFlow's
  // remapper makes the same op): written by the fusion pass, never by
  // users. `fused_ops` is ["BiasAdd"] or ["BiasAdd", "Relu"].
  ACTORFLOW_RETURN_IF_ERROR(r.add(op_def_builder("_FusedMatMul")
                                    .input("a: T")
                                    .input("b: T")
                                    .input("bias: T")
                                    .output("product: T")
                                    .attr("T: {float, double}")
                                    .attr("transpose_a: bool = false")
                                    .attr("transpose_b: bool = false")
                                    .attr("fused_ops: list(string)")
                                    .shape_fn(matmul_shape)));
  // ReluGrad(MatMul(a, b), features): a layer's input gradient through the
  // Relu before the layer, masked as the product is written. Written by
  // the fusion pass, never by users.
  return r.add(op_def_builder("_MatMulReluGrad")
                 .input("a: T")
                 .input("b: T")
                 .input("features: T")
                 .output("backprops: T")
                 .attr("T: {float, double}")
                 .attr("transpose_a: bool = false")
                 .attr("transpose_b: bool = false")
                 .shape_fn([](shape_context& ctx) {
                   ACTORFLOW_RETURN_IF_ERROR(matmul_shape(ctx));
                   const auto& features = ctx.input(2);
                   const auto& product = ctx.outputs()[0];
                   if (!features.compatible_with(product))
                     return core::invalid_argument_error(
                       "ReluGrad needs features of the product's shape ",
                       product.to_string(), ", got ", features.to_string());
                   ctx.set_output(0, product.merge(features));
                   return core::status::ok();
                 }));
}

} // namespace actorflow::ops::defs
