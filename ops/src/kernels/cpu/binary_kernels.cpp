#include "broadcast.hpp"
#include "elementwise.hpp"
#include "kernels.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::cpu {

namespace {

// Each functor applies to two scalars; `tensor` builds the Eigen expression
// for whole tensors, vectorised where Eigen has packet versions. Signed
// integers wrap around on overflow (as TensorFlow's kernels do in practice),
// computed in the unsigned type so that the wrap is defined behaviour.
#define ACTORFLOW_VECTOR_FN(name, op)                                          \
  struct name {                                                                \
    template <class T>                                                         \
    T operator()(T x, T y) const {                                             \
      if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {            \
        static_assert(sizeof(T) >= sizeof(int), "promotes to int");            \
        using U = std::make_unsigned_t<T>;                                     \
        return static_cast<T>(static_cast<U>(x) op static_cast<U>(y));         \
      } else {                                                                 \
        return x op y;                                                         \
      }                                                                        \
    }                                                                          \
    template <class X, class Y>                                                \
    static auto tensor(const X& x, const Y& y) {                               \
      if constexpr (std::is_integral_v<typename X::Scalar>)                    \
        return x.binaryExpr(y, name{});                                        \
      else                                                                     \
        return x op y;                                                         \
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

/// Integer quotient truncated toward zero; INT_MIN / -1 wraps instead of
/// trapping. The divisor is checked to be nonzero before.
template <class T>
T truncate_div(T x, T y) {
  using U = std::make_unsigned_t<T>;
  if (y == -1)
    return static_cast<T>(U{0} - static_cast<U>(x));
  return x / y;
}

template <class T>
T truncate_mod(T x, T y) {
  if constexpr (std::is_integral_v<T>)
    return y == -1 ? T{0} : x % y;
  else
    return std::fmod(x, y);
}

/// Quotient rounded toward negative infinity (Python's //).
template <class T>
T floor_div(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    T q = truncate_div(x, y);
    return truncate_mod(x, y) != 0 && ((x < 0) != (y < 0)) ? q - 1 : q;
  } else {
    return std::floor(x / y);
  }
}

/// Remainder with the sign of the divisor (Python's %).
template <class T>
T floor_mod(T x, T y) {
  T r = truncate_mod(x, y);
  return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

/// x to the power y; integers by squaring (wrapping on overflow), with y
/// checked to be non-negative before.
template <class T>
T power(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    U result = 1, base = static_cast<U>(x);
    for (auto e = static_cast<U>(y); e != 0; e >>= 1) {
      if (e & 1)
        result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  } else {
    return static_cast<T>(std::pow(x, y));
  }
}

/// (x - y)^2; integers wrap on overflow like Sub and Mul.
template <class T>
T squared_difference(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    auto d = static_cast<U>(static_cast<U>(x) - static_cast<U>(y));
    return static_cast<T>(d * d);
  } else {
    T d = x - y;
    return d * d;
  }
}

ACTORFLOW_VECTOR_FN(add_fn, +)
ACTORFLOW_VECTOR_FN(sub_fn, -)
ACTORFLOW_VECTOR_FN(mul_fn, *)
ACTORFLOW_VECTOR_FN(real_div_fn, /)
ACTORFLOW_SCALAR_FN(int_div_fn, truncate_div(x, y))
ACTORFLOW_SCALAR_FN(floor_div_fn, floor_div(x, y))
ACTORFLOW_SCALAR_FN(mod_fn, truncate_mod(x, y))
ACTORFLOW_SCALAR_FN(floor_mod_fn, floor_mod(x, y))
ACTORFLOW_SCALAR_FN(maximum_fn, x < y ? y : x)
ACTORFLOW_SCALAR_FN(minimum_fn, y < x ? y : x)
ACTORFLOW_SCALAR_FN(pow_fn, power(x, y))
ACTORFLOW_SCALAR_FN(div_no_nan_fn, y == 0 ? decltype(x / y)(0) : x / y)
ACTORFLOW_SCALAR_FN(squared_difference_fn, squared_difference(x, y))
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

/// A vector of `U` at any address.
template <class U>
using unaligned
  = Eigen::TensorMap<Eigen::Tensor<U, 1, Eigen::RowMajor, Eigen::DenseIndex>,
                     Eigen::Unaligned>;

/// What an integer op requires of its right operand.
enum class rhs_rule { any, nonzero, non_negative };

/// Element-wise `Fn` with NumPy broadcasting. Equal shapes and scalar
/// operands take Eigen paths; the rest walks an index. The output's element
/// type is what `Fn` returns (bool for comparisons). Integer division and
/// powers check their right operand first (`Rule`).
template <class T, class Fn, rhs_rule Rule = rhs_rule::any>
class binary_kernel : public cheap_kernel {
  using out_type = decltype(Fn{}(T{}, T{}));

public:
  explicit binary_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& y = ctx.input(1);
    if constexpr (Rule != rhs_rule::any && std::is_integral_v<T>) {
      const T* yp = y.data<T>();
      for (int64_t i = 0, n = y.num_elements(); i < n; ++i)
        if (Rule == rhs_rule::nonzero ? yp[i] == 0 : yp[i] < 0) {
          ctx.fail(core::invalid_argument_error(
            Rule == rhs_rule::nonzero
              ? "integer division by zero"
              : "integers to negative integer powers are not allowed",
            " (element ", i, " of y)"));
          return;
        }
    }
    // The output's shape: an input's when the other is a scalar or of the
    // same shape (no shape to build), else the broadcast one.
    const core::shape* out_shape = &x.shape();
    core::shape broadcast;
    if (y.shape().rank() != 0 && x.shape() != y.shape()) {
      if (x.shape().rank() == 0) {
        out_shape = &y.shape();
      } else {
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, broadcast_shapes(x.shape(), y.shape(), &broadcast));
        out_shape = &broadcast;
      }
    }
    // The result may go over an input of its shape (element by element,
    // each output element reads only the inputs at its own index or a
    // broadcast one).
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.forward_input_or_allocate_output(x.shape() == *out_shape ? 0 : 1,
                                                0, *out_shape, &out));
    auto n = out->num_elements();
    if (x.shape() == y.shape()) {
      for_elements(ctx, n, [&](int64_t begin, int64_t end) {
        mutable_elements<out_type>(*out, begin, end)
          = Fn::tensor(elements<T>(x, begin, end), elements<T>(y, begin, end));
      });
    } else if (y.num_elements() == 1) {
      auto value = y.scalar_value<T>();
      for_elements(ctx, n, [&](int64_t begin, int64_t end) {
        auto xs = elements<T>(x, begin, end);
        mutable_elements<out_type>(*out, begin, end)
          = Fn::tensor(xs, xs.constant(value));
      });
    } else if (x.num_elements() == 1) {
      auto value = x.scalar_value<T>();
      for_elements(ctx, n, [&](int64_t begin, int64_t end) {
        auto ys = elements<T>(y, begin, end);
        mutable_elements<out_type>(*out, begin, end)
          = Fn::tensor(ys.constant(value), ys);
      });
    } else if (!rows(x, y, *out)) {
      generic(x, y, *out);
    }
  }

private:
  /// One operand of the output's shape, the other repeated along it a
  /// run per element (`[n, m]` with `[n, 1]`: a row times its scalar) or
  /// as a whole (`[n, m]` with `[m]`): Eigen over each run. False for
  /// other broadcasts.
  static bool rows(const core::tensor& x, const core::tensor& y,
                   core::tensor& out) {
    const auto& os = out.shape();
    bool x_full = x.shape() == os;
    const auto& full = x_full ? x : y;
    const auto& part = x_full ? y : x;
    if (full.shape() != os)
      return false;
    // Runs start anywhere: unaligned maps (core::tensor::map is aligned).
    auto in_run = [](const core::tensor& t, int64_t begin, int64_t n) {
      return unaligned<const T>{t.data<T>() + begin, n};
    };
    auto* z = out.mutable_data<out_type>();
    int64_t run = 0;
    if (repeats_each_element(os, part.shape(), &run) && run > 0) {
      const T* p = part.data<T>();
      for (int64_t r = 0, n = part.num_elements(); r < n; ++r) {
        auto seg = in_run(full, r * run, run);
        unaligned<out_type> to{z + r * run, run};
        if (x_full)
          to = Fn::tensor(seg, seg.constant(p[r]));
        else
          to = Fn::tensor(seg.constant(p[r]), seg);
      }
      return true;
    }
    auto period = part.num_elements();
    if (!repeats_whole(os, part.shape()) || period == 0)
      return false;
    auto whole = in_run(part, 0, period);
    for (int64_t b = 0, n = out.num_elements(); b < n; b += period) {
      auto seg = in_run(full, b, period);
      unaligned<out_type> to{z + b, period};
      if (x_full)
        to = Fn::tensor(seg, whole);
      else
        to = Fn::tensor(whole, seg);
    }
    return true;
  }

  static void generic(const core::tensor& x, const core::tensor& y,
                      core::tensor& out) {
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    auto* zp = out.mutable_data<out_type>();
    Fn fn;
    for_each_broadcast<2>(out.shape(), {&x.shape(), &y.shape()},
                          [&](int64_t i, const std::array<int64_t, 2>& at) {
                            zp[i] = fn(xp[at[0]], yp[at[1]]);
                          });
  }
};

/// The sum of N tensors of one shape.
template <class T>
class add_n_kernel : public cheap_kernel {
public:
  explicit add_n_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& first = ctx.input(0);
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
      ACTORFLOW_OP_REQUIRES(ctx, ctx.input(i).shape() == first.shape(),
                            core::invalid_argument_error(
                              "AddN needs inputs of one shape; input 0 is ",
                              first.shape().to_string(), ", input ", i, " is ",
                              ctx.input(i).shape().to_string()));
    if (ctx.num_inputs() == 1) {
      ctx.set_output(0, first);
      return;
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, first.shape(), &out));
    // Each range summed whole before the next: the partial sums stay in
    // cache.
    for_elements(ctx, first.num_elements(), [&](int64_t begin, int64_t end) {
      auto z = mutable_elements<T>(*out, begin, end);
      z = add_fn::tensor(elements<T>(first, begin, end),
                         elements<T>(ctx.input(1), begin, end));
      for (size_t i = 2; i < ctx.num_inputs(); ++i)
        z = add_fn::tensor(z, elements<T>(ctx.input(i), begin, end));
    });
  }
};

template <class Fn, rhs_rule Rule = rhs_rule::any>
struct with {
  template <class T>
  using kernel = binary_kernel<T, Fn, Rule>;
};

/// Div: true division for floats, truncating for integers.
template <class T>
using div_kernel
  = std::conditional_t<std::is_integral_v<T>,
                       binary_kernel<T, int_div_fn, rhs_rule::nonzero>,
                       binary_kernel<T, real_div_fn>>;

} // namespace

void register_binary_kernels(kernel_registry& r) {
  r.add_typed<with<add_fn>::kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("Add", device_type);
  r.add_typed<with<add_fn>::kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("AddV2", device_type);
  r.add_typed<with<sub_fn>::kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("Sub", device_type);
  r.add_typed<with<mul_fn>::kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("Mul", device_type);
  r.add_typed<add_n_kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("AddN", device_type);
  r.add_typed<div_kernel, float, double, int32_t, int64_t>("Div", device_type);
  r.add_typed<with<real_div_fn>::kernel, float, double>("RealDiv", device_type);
  r.add_typed<with<div_no_nan_fn>::kernel, float, double>("DivNoNan",
                                                          device_type);
  constexpr auto nonzero = rhs_rule::nonzero;
  r.add_typed<with<floor_div_fn, nonzero>::kernel, float, double, int32_t,
              int64_t>("FloorDiv", device_type);
  r.add_typed<with<mod_fn, nonzero>::kernel, float, double, int32_t, int64_t>(
    "Mod", device_type);
  r.add_typed<with<floor_mod_fn, nonzero>::kernel, float, double, int32_t,
              int64_t>("FloorMod", device_type);
  r.add_typed<with<pow_fn, rhs_rule::non_negative>::kernel, float, double,
              int32_t, int64_t>("Pow", device_type);
  r.add_typed<with<maximum_fn>::kernel, float, double, int32_t, int64_t>(
    "Maximum", device_type);
  r.add_typed<with<squared_difference_fn>::kernel, Eigen::half, Eigen::bfloat16,
              float, double, int32_t, int64_t>("SquaredDifference",
                                               device_type);
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
