// Gradient functions of the math ops, after TensorFlow's math_grad.py.

#include <algorithm>

#include "../builder_util.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "grad_util.hpp"

namespace actorflow::graph::detail {

namespace {

using core::status;

/// dy -> dx for an op of one input and one output.
using unary_grad
  = std::function<output(const scope&, const gradient_op&, const output&)>;

/// dz -> (dx, dy) before undoing broadcasting.
using binary_grad = std::function<std::pair<output, output>(
  const scope&, const output& x, const output& y, const output& z,
  const output& g)>;

void add_unary(gradient_registry& r, const char* op, unary_grad f) {
  r.add(op, [f = std::move(f)](const scope& s, const gradient_op& node,
                               const std::vector<output>& g,
                               std::vector<output>* in) {
    (*in)[0] = f(s, node, g[0]);
    return status::ok();
  });
}

/// A broadcasting binary op: each gradient is summed back to its input's
/// shape.
void add_binary(gradient_registry& r, const char* op, binary_grad f) {
  r.add(op, [f = std::move(f)](const scope& s, const gradient_op& node,
                               const std::vector<output>& g,
                               std::vector<output>* in) {
    const auto& x = node.inputs[0];
    const auto& y = node.inputs[1];
    auto [gx, gy] = f(s, x, y, node.outputs[0], g[0]);
    (*in)[0] = sum_to(s, gx, x);
    (*in)[1] = sum_to(s, gy, y);
    return status::ok();
  });
}

output scalar(const scope& s, double v, const output& like) {
  return constant(s, v, like.dtype());
}

/// x @ y's gradients for the four transpositions (TensorFlow's MatMul and
/// BatchMatMul gradients); `mm(a, b, ta, tb)` multiplies.
template <class MatMul>
std::pair<output, output> product_grads(const MatMul& mm, const output& x,
                                        const output& y, const output& g,
                                        bool tx, bool ty) {
  if (!tx && !ty)
    return {mm(g, y, false, true), mm(x, g, true, false)};
  if (!tx && ty)
    return {mm(g, y, false, false), mm(g, x, true, false)};
  if (tx && !ty)
    return {mm(y, g, false, true), mm(x, g, false, false)};
  return {mm(y, g, true, true), mm(g, x, true, true)};
}

/// Einsum's gradient (TensorFlow's _EinsumGrad): for operand i, the
/// einsum of the output's gradient with the other operands onto i's
/// labels; labels only operand i has (summed in the forward) come back by
/// broadcasting, dimensions an ellipsis broadcast by summing.
status einsum_grad(const scope& s, const gradient_op& op,
                   const std::vector<output>& g, std::vector<output>* in) {
  auto equation = op.attr_or("equation", std::string{});
  equation.erase(std::remove(equation.begin(), equation.end(), ' '),
                 equation.end());
  auto arrow = equation.find("->");
  if (arrow == std::string::npos)
    return core::unimplemented_error(
             "the gradient of Einsum needs an explicit output ('->') in "
             "equation '",
             equation, "'")
      .with_context(op.node.name, op.node.op);
  auto out = equation.substr(arrow + 2);
  std::vector<std::string> terms{""};
  for (char c : equation.substr(0, arrow)) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back() += c;
  }
  for (size_t i = 0; i < terms.size() && i < op.inputs.size(); ++i) {
    const auto& term = terms[i];
    auto elsewhere = [&](char c) {
      if (out.find(c) != std::string::npos)
        return true;
      for (size_t j = 0; j < terms.size(); ++j)
        if (j != i && terms[j].find(c) != std::string::npos)
          return true;
      return false;
    };
    std::string kept;
    std::vector<int64_t> dropped; // positions of labels only this term has
    for (size_t p = 0; p < term.size(); ++p) {
      char c = term[p];
      if (c == '.' || elsewhere(c))
        kept += c;
      else
        dropped.push_back(static_cast<int64_t>(p));
    }
    bool dots = term.find("...") != std::string::npos;
    if (dots && !dropped.empty())
      return core::unimplemented_error(
               "the gradient of Einsum '", equation, "': operand ", i,
               " has both an ellipsis and labels no other term has")
        .with_context(op.node.name, op.node.op);
    std::string eq = out;
    std::vector<output> operands{g[0]};
    for (size_t j = 0; j < terms.size(); ++j)
      if (j != i) {
        eq += "," + terms[j];
        operands.push_back(op.inputs[j]);
      }
    eq += "->" + kept;
    auto gi = s.add_node("Einsum", "Einsum", operands,
                         {{"equation", eq},
                          {"N", static_cast<int64_t>(operands.size())},
                          {"T", op.inputs[i].dtype()}})[0];
    for (auto p : dropped)
      gi = expand_dims(s, gi, p);
    if (!dropped.empty())
      gi = broadcast_to(s, gi, shape_of(s, op.inputs[i]));
    (*in)[i] = dots ? sum_to(s, gi, op.inputs[i]) : gi;
  }
  return status::ok();
}

} // namespace

void register_math_gradients(gradient_registry& r) {
  r.add("Einsum", einsum_grad);
  add_unary(r, "Identity", [](auto&, auto&, const output& g) { return g; });
  add_unary(r, "CheckNumerics",
            [](auto&, auto&, const output& g) { return g; });
  add_unary(r, "PlaceholderWithDefault",
            [](auto&, auto&, const output& g) { return g; });
  r.add("IdentityN", [](const scope&, const gradient_op&,
                        const std::vector<output>& g, std::vector<output>* in) {
    *in = g;
    return status::ok();
  });
  add_unary(r, "Neg",
            [](const scope& s, auto&, const output& g) { return neg(s, g); });
  add_unary(r, "Abs",
            [](const scope& s, const gradient_op& op, const output& g) {
              return mul(s, g, sign(s, op.inputs[0]));
            });
  add_unary(r, "Sign", [](const scope& s, const gradient_op& op, auto&) {
    return zeros_like(s, op.inputs[0]);
  });
  add_unary(r, "Square",
            [](const scope& s, const gradient_op& op, const output& g) {
              const auto& x = op.inputs[0];
              return mul(s, g, mul(s, scalar(s, 2, x), x));
            });
  add_unary(r, "Exp",
            [](const scope& s, const gradient_op& op, const output& g) {
              return mul(s, g, op.outputs[0]);
            });
  add_unary(r, "Log",
            [](const scope& s, const gradient_op& op, const output& g) {
              return div(s, g, op.inputs[0]);
            });
  add_unary(r, "Log1p",
            [](const scope& s, const gradient_op& op, const output& g) {
              const auto& x = op.inputs[0];
              return div(s, g, add(s, scalar(s, 1, x), x));
            });
  add_unary(r, "Sqrt",
            [](const scope& s, const gradient_op& op, const output& g) {
              const auto& y = op.outputs[0];
              return div(s, mul(s, g, scalar(s, 0.5, y)), y);
            });
  add_unary(
    r, "Rsqrt", [](const scope& s, const gradient_op& op, const output& g) {
      const auto& y = op.outputs[0];
      return mul(s, g, mul(s, scalar(s, -0.5, y), mul(s, y, square(s, y))));
    });
  add_unary(r, "Tanh",
            [](const scope& s, const gradient_op& op, const output& g) {
              return typed(s, "TanhGrad", {op.outputs[0], g});
            });
  // d erf(x) = 2/sqrt(pi) exp(-x^2), erfc's its negative.
  for (double sign : {1.0, -1.0})
    add_unary(r, sign > 0 ? "Erf" : "Erfc",
              [sign](const scope& s, const gradient_op& op, const output& g) {
                const auto& x = op.inputs[0];
                auto slope = scalar(s, sign * 1.1283791670955126, x);
                return mul(s, g, mul(s, slope, exp(s, neg(s, square(s, x)))));
              });
  add_unary(r, "Sigmoid",
            [](const scope& s, const gradient_op& op, const output& g) {
              return typed(s, "SigmoidGrad", {op.outputs[0], g});
            });
  add_unary(
    r, "Cast", [](const scope& s, const gradient_op& op, const output& g) {
      const auto& x = op.inputs[0];
      if (!core::is_floating(x.dtype()) || !core::is_floating(g.dtype()))
        return output{};
      return cast(s, g, x.dtype());
    });
  for (const char* op : {"Floor", "Ceil", "Round", "FloorDiv", "StopGradient"})
    r.add_not_differentiable(op);

  for (const char* op : {"Add", "AddV2"})
    add_binary(r, op, [](const scope&, auto&, auto&, auto&, const output& g) {
      return std::pair{g, g};
    });
  add_binary(r, "Sub",
             [](const scope& s, auto&, auto&, auto&, const output& g) {
               return std::pair{g, neg(s, g)};
             });
  add_binary(r, "SquaredDifference",
             [](const scope& s, const output& x, const output& y, auto&,
                const output& g) {
               auto gx = mul(s, mul(s, scalar(s, 2, x), g), sub(s, x, y));
               return std::pair{gx, neg(s, gx)};
             });
  add_binary(r, "Mul",
             [](const scope& s, const output& x, const output& y, auto&,
                const output& g) {
               return std::pair{mul(s, g, y), mul(s, x, g)};
             });
  for (const char* op : {"Div", "RealDiv"})
    add_binary(r, op,
               [](const scope& s, const output& x, const output& y, auto&,
                  const output& g) {
                 return std::pair{div(s, g, y),
                                  mul(s, neg(s, g), div(s, div(s, x, y), y))};
               });
  add_binary(r, "DivNoNan",
             [](const scope& s, const output& x, const output& y, auto&,
                const output& g) {
               auto div_no_nan = [&](const output& a, const output& b) {
                 return s.add_node("DivNoNan", "DivNoNan", {a, b},
                                   {{"T", a.dtype()}})[0];
               };
               return std::pair{
                 div_no_nan(g, y),
                 mul(s, g, div_no_nan(div_no_nan(neg(s, x), y), y))};
             });
  add_binary(r, "Mod",
             [](const scope& s, const output& x, const output& y, auto&,
                const output& g) {
               // x - trunc(x / y) * y; trunc(q) = sign(q) * floor(|q|).
               auto q = div(s, x, y);
               auto trunc = mul(s, sign(s, q), floor(s, abs(s, q)));
               return std::pair{g, mul(s, neg(s, g), trunc)};
             });
  add_binary(r, "FloorMod",
             [](const scope& s, const output& x, const output& y, auto&,
                const output& g) {
               return std::pair{g, mul(s, neg(s, g), floor_div(s, x, y))};
             });
  add_binary(r, "Pow",
             [](const scope& s, const output& x, const output& y,
                const output& z, const output& g) {
               auto gx
                 = mul(s, g, mul(s, y, pow(s, x, sub(s, y, scalar(s, 1, y)))));
               // log(x) where x > 0, else 0 (TensorFlow's choice at x <= 0).
               auto positive = greater(s, x, zeros_like(s, x));
               auto safe_x = select(s, positive, x, ones_like(s, x));
               auto log_x
                 = select(s, positive, log(s, safe_x), zeros_like(s, x));
               return std::pair{gx, mul(s, g, mul(s, z, log_x))};
             });
  auto extremum = [](bool max) {
    return [max](const scope& s, const output& x, const output& y, auto&,
                 const output& g) {
      auto pick_x = max ? greater_equal(s, x, y) : less_equal(s, x, y);
      auto zeros = zeros_like(s, g);
      return std::pair{select(s, pick_x, g, zeros),
                       select(s, pick_x, zeros, g)};
    };
  };
  add_binary(r, "Maximum", extremum(true));
  add_binary(r, "Minimum", extremum(false));

  r.add("AddN", [](const scope&, const gradient_op& op,
                   const std::vector<output>& g, std::vector<output>* in) {
    for (size_t i = 0; i < op.inputs.size(); ++i)
      (*in)[i] = g[0];
    return status::ok();
  });
  r.add("Select", [](const scope& s, const gradient_op& op,
                     const std::vector<output>& g, std::vector<output>* in) {
    const auto& c = op.inputs[0];
    auto zeros = zeros_like(s, g[0]);
    (*in)[1] = select(s, c, g[0], zeros);
    (*in)[2] = select(s, c, zeros, g[0]);
    return status::ok();
  });

  r.add("Sum", [](const scope& s, const gradient_op& op,
                  const std::vector<output>& g, std::vector<output>* in) {
    output kept, kept_shape;
    ACTORFLOW_RETURN_IF_ERROR(
      keep_reduced_dims(s, op, g[0], &kept, &kept_shape));
    (*in)[0] = broadcast_back(s, kept, op.inputs[0], kept_shape);
    return status::ok();
  });
  r.add("Mean", [](const scope& s, const gradient_op& op,
                   const std::vector<output>& g, std::vector<output>* in) {
    const auto& x = op.inputs[0];
    const auto& y = op.outputs[0];
    output kept, kept_shape;
    ACTORFLOW_RETURN_IF_ERROR(
      keep_reduced_dims(s, op, g[0], &kept, &kept_shape));
    output count;
    if (x.shape().fully_defined() && y.shape().fully_defined())
      count = scalar(
        s,
        static_cast<double>(x.shape().num_elements())
          / static_cast<double>(std::max<int64_t>(y.shape().num_elements(), 1)),
        x);
    else
      count = cast(
        s,
        floor_div(s, size(s, x),
                  maximum(s, size(s, y), constant(s, 1.0, core::dtype::int32))),
        x.dtype());
    (*in)[0] = div(s, broadcast_back(s, kept, x, kept_shape), count);
    return status::ok();
  });
  auto extreme_reduction
    = [](const scope& s, const gradient_op& op, const std::vector<output>& g,
         std::vector<output>* in) {
        // Split among the elements equal to the extreme, as TensorFlow.
        const auto& x = op.inputs[0];
        output kept_g, kept_shape;
        ACTORFLOW_RETURN_IF_ERROR(
          keep_reduced_dims(s, op, g[0], &kept_g, &kept_shape));
        auto kept_y = reshape(s, op.outputs[0], kept_shape);
        auto hits = cast(s, equal(s, x, kept_y), x.dtype());
        auto count = sum_over(s, hits, op.inputs[1], true);
        (*in)[0] = mul(s, div(s, hits, count), kept_g);
        return status::ok();
      };
  r.add("Prod", [](const scope& s, const gradient_op& op,
                   const std::vector<output>& g, std::vector<output>* in) {
    // d prod / dx_i is the product of the others, exact with zeros too:
    // with P the product of the nonzero elements and z the zeros counted,
    // it is P / x_i where z = 0, P at the zero where z = 1, else 0.
    const auto& x = op.inputs[0];
    const auto& axes = op.inputs[1];
    output kept_g, kept_shape;
    ACTORFLOW_RETURN_IF_ERROR(
      keep_reduced_dims(s, op, g[0], &kept_g, &kept_shape));
    auto zero = zeros_like(s, x);
    auto one = ones_like(s, x);
    auto is_zero = equal(s, x, zero);
    auto nonzero = select(s, is_zero, one, x);
    auto product
      = broadcast_back(s,
                       typed(s, "Prod", {nonzero, axes},
                             {{"keep_dims", true}, {"Tidx", axes.dtype()}}),
                       x, kept_shape);
    auto zeros = broadcast_back(
      s, sum_over(s, cast(s, is_zero, x.dtype()), axes, true), x, kept_shape);
    auto others = select(
      s, is_zero, select(s, equal(s, zeros, one), product, zero),
      select(s, equal(s, zeros, zero), div(s, product, nonzero), zero));
    (*in)[0] = mul(s, broadcast_back(s, kept_g, x, kept_shape), others);
    return status::ok();
  });
  r.add("Max", extreme_reduction);
  r.add("Min", extreme_reduction);

  r.add("MatMul", [](const scope& s, const gradient_op& op,
                     const std::vector<output>& g, std::vector<output>* in) {
    auto mm = [&](const output& a, const output& b, bool ta, bool tb) {
      return matmul(s, a, b, {ta, tb});
    };
    auto [ga, gb] = product_grads(mm, op.inputs[0], op.inputs[1], g[0],
                                  op.attr_or("transpose_a", false),
                                  op.attr_or("transpose_b", false));
    (*in)[0] = ga;
    (*in)[1] = gb;
    return status::ok();
  });
  auto batch_grad = [](const scope& s, const gradient_op& op,
                       const std::vector<output>& g, std::vector<output>* in) {
    auto mm = [&](const output& a, const output& b, bool ta, bool tb) {
      return batch_matmul(s, a, b, ta, tb);
    };
    const auto& x = op.inputs[0];
    const auto& y = op.inputs[1];
    auto [gx, gy] = product_grads(mm, x, y, g[0], op.attr_or("adj_x", false),
                                  op.attr_or("adj_y", false));
    (*in)[0] = sum_to(s, gx, x);
    (*in)[1] = sum_to(s, gy, y);
    return status::ok();
  };
  r.add("BatchMatMul", batch_grad);
  r.add("BatchMatMulV2", batch_grad);
  add_unary(
    r, "MatrixInverse",
    [](const scope& s, const gradient_op& op, const output& g) {
      // d(A^-1) = -A^-1 dA A^-1, so dA = -A^-T g A^-T (for an
      // adjoint inverse, its transpose: -A^-1 g^T A^-1).
      const auto& inv = op.outputs[0];
      if (op.attr_or("adjoint", false))
        return neg(s,
                   batch_matmul(s, inv, batch_matmul(s, g, inv, true, false)));
      return neg(s, batch_matmul(s, inv, batch_matmul(s, g, inv, false, true),
                                 true, false));
    });
  add_unary(r, "MatrixDeterminant",
            [](const scope& s, const gradient_op& op, const output& g) {
              // d det(A) / dA = det(A) A^-T.
              auto scale = mul(s, g, op.outputs[0]);
              scale = expand_dims(s, expand_dims(s, scale, -1), -1);
              return mul(s, scale, matrix_inverse(s, op.inputs[0], true));
            });
}

} // namespace actorflow::graph::detail
