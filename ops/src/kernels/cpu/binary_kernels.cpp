#include "kernels.hpp"

#include <cmath>

#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::cpu {

namespace {

// Each functor applies to two scalars; `tensor` builds the Eigen expression
// for whole tensors, vectorised where Eigen has packet versions.
#define ACTORFLOW_VECTOR_FN(name, op)                                          \
  struct name {                                                                \
    template <class T>                                                         \
    auto operator()(T x, T y) const {                                          \
      return x op y;                                                           \
    }                                                                          \
    template <class X, class Y>                                                \
    static auto tensor(const X& x, const Y& y) {                               \
      return x op y;                                                           \
    }                                                                          \
  };

#define ACTORFLOW_SCALAR_FN(name, body)                                        \
  struct name {                                                                \
    template <class T>                                                         \
    auto operator()(T x, T y) const {                                          \
      return body;                                                             \
    }                                                                          \
    template <class X, class Y>                                                \
    static auto tensor(const X& x, const Y& y) {                               \
      return x.binaryExpr(y, name{});                                          \
    }                                                                          \
  };

ACTORFLOW_VECTOR_FN(add_fn, +)
ACTORFLOW_VECTOR_FN(sub_fn, -)
ACTORFLOW_VECTOR_FN(mul_fn, *)
ACTORFLOW_VECTOR_FN(div_fn, /)
ACTORFLOW_SCALAR_FN(maximum_fn, x < y ? y : x)
ACTORFLOW_SCALAR_FN(minimum_fn, y < x ? y : x)
ACTORFLOW_SCALAR_FN(pow_fn, static_cast<T>(std::pow(x, y)))
ACTORFLOW_SCALAR_FN(greater_fn, x > y)
ACTORFLOW_SCALAR_FN(greater_equal_fn, x >= y)
ACTORFLOW_SCALAR_FN(less_fn, x < y)
ACTORFLOW_SCALAR_FN(less_equal_fn, x <= y)
ACTORFLOW_SCALAR_FN(equal_fn, x == y)
ACTORFLOW_SCALAR_FN(not_equal_fn, x != y)
ACTORFLOW_SCALAR_FN(logical_and_fn, x&& y)
ACTORFLOW_SCALAR_FN(logical_or_fn, x || y)

#undef ACTORFLOW_VECTOR_FN
#undef ACTORFLOW_SCALAR_FN

/// Strides of `s` aligned to the last `rank` dimensions of the output, with
/// 0 where `s` broadcasts.
std::vector<int64_t> broadcast_strides(const core::shape& s, int rank,
                                       const core::shape& out) {
  std::vector<int64_t> strides(static_cast<size_t>(rank), 0);
  int64_t stride = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    auto oi = rank - s.rank() + i;
    if (s.dim(i) != 1 || out.dim(oi) == 1)
      strides[static_cast<size_t>(oi)] = s.dim(i) == 1 ? 0 : stride;
    stride *= s.dim(i);
  }
  return strides;
}

/// Element-wise `Fn` with NumPy broadcasting. Equal shapes and scalar
/// operands take Eigen paths; the rest walks an index. The output's element
/// type is what `Fn` returns (bool for comparisons).
template <class T, class Fn>
class binary_kernel : public cheap_kernel {
  using out_type = decltype(Fn{}(T{}, T{}));

public:
  explicit binary_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& y = ctx.input(1);
    core::shape out_shape;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, broadcast_shapes(x.shape(), y.shape(), &out_shape));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    auto n = out->num_elements();
    auto z = out->mutable_flat<out_type>();
    auto run = [&](auto&& expr) {
      if (n >= parallel_threshold)
        z.device(eigen_device(ctx)) = expr;
      else
        z = expr;
    };
    if (x.shape() == y.shape()) {
      run(Fn::tensor(x.flat<T>(), y.flat<T>()));
    } else if (y.num_elements() == 1) {
      run(Fn::tensor(x.flat<T>(), x.flat<T>().constant(y.scalar_value<T>())));
    } else if (x.num_elements() == 1) {
      run(Fn::tensor(y.flat<T>().constant(x.scalar_value<T>()), y.flat<T>()));
    } else {
      generic(x, y, *out);
    }
  }

private:
  static void generic(const core::tensor& x, const core::tensor& y,
                      core::tensor& out) {
    const auto& os = out.shape();
    int rank = os.rank();
    auto xs = broadcast_strides(x.shape(), rank, os);
    auto ys = broadcast_strides(y.shape(), rank, os);
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    auto* zp = out.mutable_data<out_type>();
    int64_t xo = 0, yo = 0;
    Fn fn;
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      zp[i] = fn(xp[xo], yp[yo]);
      for (int d = rank - 1; d >= 0; --d) {
        auto du = static_cast<size_t>(d);
        xo += xs[du];
        yo += ys[du];
        if (++index[du] < os.dim(d))
          break;
        xo -= xs[du] * os.dim(d);
        yo -= ys[du] * os.dim(d);
        index[du] = 0;
      }
    }
  }
};

template <class Fn>
struct with {
  template <class T>
  using kernel = binary_kernel<T, Fn>;
};

} // namespace

void register_binary_kernels(kernel_registry& r) {
  r.add_typed<with<add_fn>::kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("Add", device_type);
  r.add_typed<with<sub_fn>::kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("Sub", device_type);
  r.add_typed<with<mul_fn>::kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("Mul", device_type);
  r.add_typed<with<div_fn>::kernel, float, double>("Div", device_type);
  r.add_typed<with<pow_fn>::kernel, float, double>("Pow", device_type);
  r.add_typed<with<maximum_fn>::kernel, float, double, int32_t, int64_t>(
    "Maximum", device_type);
  r.add_typed<with<minimum_fn>::kernel, float, double, int32_t, int64_t>(
    "Minimum", device_type);
  r.add_typed<with<greater_fn>::kernel, float, double, int32_t, int64_t>(
    "Greater", device_type);
  r.add_typed<with<greater_equal_fn>::kernel, float, double, int32_t, int64_t>(
    "GreaterEqual", device_type);
  r.add_typed<with<less_fn>::kernel, float, double, int32_t, int64_t>(
    "Less", device_type);
  r.add_typed<with<less_equal_fn>::kernel, float, double, int32_t, int64_t>(
    "LessEqual", device_type);
  r.add_typed<with<equal_fn>::kernel, float, double, int32_t, int64_t, bool>(
    "Equal", device_type);
  r.add_typed<with<not_equal_fn>::kernel, float, double, int32_t, int64_t,
              bool>("NotEqual", device_type);
  r.add_any<binary_kernel<bool, logical_and_fn>>("LogicalAnd", device_type);
  r.add_any<binary_kernel<bool, logical_or_fn>>("LogicalOr", device_type);
}

} // namespace actorflow::ops::cpu
