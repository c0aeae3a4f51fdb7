#include "kernels.hpp"

#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::cpu {

namespace {

struct add_fn {
  template <class X, class Y>
  auto operator()(const X& x, const Y& y) const {
    return x + y;
  }
};

struct sub_fn {
  template <class X, class Y>
  auto operator()(const X& x, const Y& y) const {
    return x - y;
  }
};

struct mul_fn {
  template <class X, class Y>
  auto operator()(const X& x, const Y& y) const {
    return x * y;
  }
};

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
/// operands take vectorised Eigen paths; the rest walks an index.
template <class T, class Fn>
class binary_kernel : public basic_kernel {
public:
  explicit binary_kernel(kernel_construction&) {
    // nop
  }

  bool is_expensive() const noexcept override {
    return false;
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
    auto z = out->mutable_flat<T>();
    Fn fn;
    auto run = [&](auto&& expr) {
      if (n >= parallel_threshold)
        z.device(eigen_device(ctx)) = expr;
      else
        z = expr;
    };
    if (x.shape() == y.shape()) {
      run(fn(x.flat<T>(), y.flat<T>()));
    } else if (y.num_elements() == 1) {
      run(fn(x.flat<T>(), x.flat<T>().constant(y.scalar_value<T>())));
    } else if (x.num_elements() == 1) {
      run(fn(y.flat<T>().constant(x.scalar_value<T>()), y.flat<T>()));
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
    T* zp = out.mutable_data<T>();
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

template <class T>
using add_kernel = binary_kernel<T, add_fn>;
template <class T>
using sub_kernel = binary_kernel<T, sub_fn>;
template <class T>
using mul_kernel = binary_kernel<T, mul_fn>;

} // namespace

void register_binary_kernels(kernel_registry& r) {
  r.add_typed<add_kernel, Eigen::half, Eigen::bfloat16, float, double, int32_t,
              int64_t>("Add", device_type);
  r.add_typed<sub_kernel, Eigen::half, Eigen::bfloat16, float, double, int32_t,
              int64_t>("Sub", device_type);
  r.add_typed<mul_kernel, Eigen::half, Eigen::bfloat16, float, double, int32_t,
              int64_t>("Mul", device_type);
}

} // namespace actorflow::ops::cpu
