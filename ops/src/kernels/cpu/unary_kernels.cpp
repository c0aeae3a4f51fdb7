#include "elementwise.hpp"
#include "kernels.hpp"

#include <cmath>

#include <unsupported/Eigen/CXX11/Tensor>

namespace actorflow::ops::cpu {

namespace {

/// y = f(x), element-wise, with `Fn` a functor that Eigen can apply (and
/// vectorise where it has a packet version).
template <class T, class Fn>
class unary_kernel : public cheap_kernel {
public:
  explicit unary_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.forward_input_or_allocate_output(0, 0, x.shape(), &out));
    for_elements(ctx, x.num_elements(), [&](int64_t begin, int64_t end) {
      mutable_elements<T>(*out, begin, end)
        = Fn::apply(elements<T>(x, begin, end));
    });
  }
};

// One functor per op: each maps an Eigen expression to an expression, so
// Eigen's vectorised versions are used where they exist (exp, log, tanh,
// sigmoid, sqrt, ...). Round is round-half-to-even, as in TensorFlow and
// numpy.
#define ACTORFLOW_UNARY_FN(name, body)                                         \
  struct name {                                                                \
    template <class X>                                                         \
    static auto apply(const X& x) {                                            \
      return body;                                                             \
    }                                                                          \
  };

ACTORFLOW_UNARY_FN(relu_fn, x.cwiseMax(static_cast<typename X::Scalar>(0)))
ACTORFLOW_UNARY_FN(neg_fn, -x)
ACTORFLOW_UNARY_FN(abs_fn, x.abs())
ACTORFLOW_UNARY_FN(sign_fn, x.sign())
ACTORFLOW_UNARY_FN(square_fn, x.square())
ACTORFLOW_UNARY_FN(exp_fn, x.exp())
ACTORFLOW_UNARY_FN(log_fn, x.log())
ACTORFLOW_UNARY_FN(log1p_fn, x.log1p())
ACTORFLOW_UNARY_FN(sqrt_fn, x.sqrt())
ACTORFLOW_UNARY_FN(rsqrt_fn, x.rsqrt())
ACTORFLOW_UNARY_FN(floor_fn, x.floor())
ACTORFLOW_UNARY_FN(ceil_fn, x.ceil())
ACTORFLOW_UNARY_FN(round_fn,
                   x.unaryExpr([](auto v) { return std::nearbyint(v); }))
ACTORFLOW_UNARY_FN(tanh_fn, x.tanh())
ACTORFLOW_UNARY_FN(sigmoid_fn, x.sigmoid())
ACTORFLOW_UNARY_FN(relu6_fn, x.cwiseMax(static_cast<typename X::Scalar>(0))
                               .cwiseMin(static_cast<typename X::Scalar>(6)))
ACTORFLOW_UNARY_FN(elu_fn, x.unaryExpr([](auto v) {
  return v < 0 ? std::expm1(v) : v;
}))
// SELU's constants, from Klambauer et al. 2017 (as TensorFlow uses them).
ACTORFLOW_UNARY_FN(selu_fn, x.unaryExpr([](auto v) {
  using T = decltype(v);
  const T scale = T(1.0507009873554804934193349852946);
  const T alpha = T(1.6732632423543772848170429916717);
  return v < 0 ? scale * alpha * std::expm1(v) : scale * v;
}))
// log(1 + e^x) without overflow for large x or loss for very negative x.
ACTORFLOW_UNARY_FN(softplus_fn, x.unaryExpr([](auto v) {
  return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
}))
ACTORFLOW_UNARY_FN(softsign_fn,
                   x / (x.abs() + static_cast<typename X::Scalar>(1)))
ACTORFLOW_UNARY_FN(erf_fn, x.unaryExpr([](auto v) { return std::erf(v); }))
ACTORFLOW_UNARY_FN(erfc_fn, x.unaryExpr([](auto v) { return std::erfc(v); }))
ACTORFLOW_UNARY_FN(logical_not_fn, x.unaryExpr([](bool v) { return !v; }))

#undef ACTORFLOW_UNARY_FN

template <class Fn>
struct with {
  template <class T>
  using kernel = unary_kernel<T, Fn>;
};

template <class Fn>
void add_floating(kernel_registry& r, const char* op) {
  r.add_typed<with<Fn>::template kernel, float, double>(op, device_type);
}

template <class Fn>
void add_signed(kernel_registry& r, const char* op) {
  r.add_typed<with<Fn>::template kernel, float, double, int32_t, int64_t>(
    op, device_type);
}

} // namespace

void register_unary_kernels(kernel_registry& r) {
  add_signed<relu_fn>(r, "Relu");
  add_signed<neg_fn>(r, "Neg");
  add_signed<abs_fn>(r, "Abs");
  add_signed<sign_fn>(r, "Sign");
  add_signed<square_fn>(r, "Square");
  add_floating<exp_fn>(r, "Exp");
  add_floating<log_fn>(r, "Log");
  add_floating<log1p_fn>(r, "Log1p");
  add_floating<sqrt_fn>(r, "Sqrt");
  add_floating<rsqrt_fn>(r, "Rsqrt");
  add_floating<floor_fn>(r, "Floor");
  add_floating<ceil_fn>(r, "Ceil");
  add_floating<round_fn>(r, "Round");
  add_floating<tanh_fn>(r, "Tanh");
  add_floating<sigmoid_fn>(r, "Sigmoid");
  add_signed<relu6_fn>(r, "Relu6");
  add_floating<elu_fn>(r, "Elu");
  add_floating<selu_fn>(r, "Selu");
  add_floating<softplus_fn>(r, "Softplus");
  add_floating<softsign_fn>(r, "Softsign");
  add_floating<erf_fn>(r, "Erf");
  add_floating<erfc_fn>(r, "Erfc");
  r.add_any<unary_kernel<bool, logical_not_fn>>("LogicalNot", device_type);
}

} // namespace actorflow::ops::cpu
