// The optimizers' update ops, as TensorFlow's training_ops: each updates a
// variable and its slot variables (accumulators, moments) in place from a
// gradient and scalar hyper-parameters; Apply* take and output reference
// variables, ResourceApply* take handles (TensorFlow 2's and Keras').

#include "defs.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::defs {

namespace {

/// `slots` reference inputs (the variable first) and the gradient at
/// input `grad` share one shape; the other inputs are scalars. With
/// `resource` the first inputs are handles, and only the gradient's shape
/// is known here.
op_def::shape_fn apply_shape(int slots, int grad, bool resource) {
  return [slots, grad, resource](shape_context& ctx) {
    auto s = resource ? ctx.input(static_cast<size_t>(grad)) : ctx.input(0);
    for (int i = 0; i < static_cast<int>(ctx.num_inputs()); ++i) {
      const auto& in = ctx.input(static_cast<size_t>(i));
      if (i < slots && resource) {
        if (in.known_rank() && in.rank() != 0)
          return core::invalid_argument_error(
            "input ", i, " must be a variable handle, a scalar, got shape ",
            in.to_string());
      } else if (i < slots || i == grad) {
        if (!s.compatible_with(in))
          return core::invalid_argument_error(
            "input ", i, " has shape ", in.to_string(),
            ", the variable has shape ", s.to_string());
        s = s.merge(in);
      } else if (in.rank() > 0) {
        return core::invalid_argument_error(
          "input ", i, " must be a scalar, got shape ", in.to_string());
      }
    }
    if (!resource)
      ctx.set_output(0, s);
    return core::status::ok();
  };
}

/// Adds Apply<name> -- `refs` reference inputs, then `values` inputs of
/// T, the gradient among them at index `grad`; outputs the variable's
/// reference -- and ResourceApply<name>, the same on variable handles,
/// with no output.
core::status add_apply(op_registry& r, const std::string& name,
                       std::vector<const char*> refs,
                       std::vector<const char*> values, const char* grad,
                       std::vector<const char*> extra_attrs) {
  for (bool resource : {false, true}) {
    op_def_builder b{(resource ? "ResourceApply" : "Apply") + name};
    for (auto x : refs)
      b.input(std::string{x} + (resource ? ": string" : ": Ref(T)"));
    int grad_index = -1;
    for (size_t i = 0; i < values.size(); ++i) {
      b.input(std::string{values[i]} + ": T");
      if (std::string{values[i]} == grad)
        grad_index = static_cast<int>(refs.size() + i);
    }
    if (!resource)
      b.output("out: Ref(T)");
    b.attr("T: {float16, bfloat16, float, double}")
      .attr("use_locking: bool = false");
    for (auto a : extra_attrs)
      b.attr(a);
    b.shape_fn(apply_shape(static_cast<int>(refs.size()), grad_index, resource))
      .stateful();
    ACTORFLOW_RETURN_IF_ERROR(r.add(b));
  }
  return core::status::ok();
}

} // namespace

core::status register_training_ops(op_registry& r) {
  ACTORFLOW_RETURN_IF_ERROR(
    add_apply(r, "GradientDescent", {"var"}, {"alpha", "delta"}, "delta", {}));
  for (const char* momentum : {"Momentum", "KerasMomentum"})
    ACTORFLOW_RETURN_IF_ERROR(add_apply(r, momentum, {"var", "accum"},
                                        {"lr", "grad", "momentum"}, "grad",
                                        {"use_nesterov: bool = false"}));
  ACTORFLOW_RETURN_IF_ERROR(add_apply(r, "Adagrad", {"var", "accum"},
                                      {"lr", "grad"}, "grad",
                                      {"update_slots: bool = true"}));
  ACTORFLOW_RETURN_IF_ERROR(add_apply(r, "AdagradV2", {"var", "accum"},
                                      {"lr", "epsilon", "grad"}, "grad",
                                      {"update_slots: bool = true"}));
  ACTORFLOW_RETURN_IF_ERROR(
    add_apply(r, "RMSProp", {"var", "ms", "mom"},
              {"lr", "rho", "momentum", "epsilon", "grad"}, "grad", {}));
  ACTORFLOW_RETURN_IF_ERROR(add_apply(
    r, "Adam", {"var", "m", "v"},
    {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
    "grad", {"use_nesterov: bool = false"}));
  // var -= alpha * MatMul(a, b): ApplyGradientDescent of a weight's
  // gradient product, the product added into the variable as the GEMM
  // writes it. Written by the fusion pass, never by users.
  return r.add(op_def_builder("_MatMulApplyGradientDescent")
                 .input("var: Ref(T)")
                 .input("alpha: T")
                 .input("a: T")
                 .input("b: T")
                 .output("out: Ref(T)")
                 .attr("T: {float, double}")
                 .attr("transpose_a: bool = false")
                 .attr("transpose_b: bool = false")
                 .attr("use_locking: bool = false")
                 .shape_fn([](shape_context& ctx) {
                   ctx.set_output(0, ctx.input(0));
                   return core::status::ok();
                 })
                 .stateful());
}

} // namespace actorflow::ops::defs
