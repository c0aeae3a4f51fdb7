// CPU kernels of the gradient helper ops (defs/grad_ops.cpp).

#include "kernels.hpp"

namespace actorflow::ops::cpu {

namespace {

/// out = Fn(a, b) element by element over two inputs of one shape.
template <class T, class Fn>
class binary_same_shape_kernel : public cheap_kernel {
public:
  explicit binary_same_shape_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& a = ctx.input(0);
    const auto& b = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, a.shape() == b.shape(),
      core::invalid_argument_error("inputs must have the same shape, got ",
                                   a.shape().to_string(), " and ",
                                   b.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.forward_input_or_allocate_output(1, 0, a.shape(), &out));
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    T* z = out->mutable_data<T>();
    for (int64_t i = 0, n = a.num_elements(); i < n; ++i)
      z[i] = Fn{}(ap[i], bp[i]);
  }
};

struct relu_grad {
  template <class T>
  T operator()(T g, T f) const {
    return f > T(0) ? g : T(0);
  }
};

struct relu6_grad {
  template <class T>
  T operator()(T g, T f) const {
    return f > T(0) && f < T(6) ? g : T(0);
  }
};

struct softsign_grad {
  template <class T>
  T operator()(T g, T f) const {
    T d = T(1) + (f < T(0) ? -f : f);
    return g / (d * d);
  }
};

struct elu_grad {
  template <class T>
  T operator()(T g, T y) const {
    return y < T(0) ? g * (y + T(1)) : g;
  }
};

// SELU's constants, as in unary_kernels.cpp.
struct selu_grad {
  template <class T>
  T operator()(T g, T y) const {
    const T scale = T(1.0507009873554804934193349852946);
    const T alpha = T(1.6732632423543772848170429916717);
    return y < T(0) ? g * (y + scale * alpha) : g * scale;
  }
};

struct rsqrt_grad {
  template <class T>
  T operator()(T y, T dy) const {
    return dy * (T(-0.5) * y * y * y);
  }
};

struct sqrt_grad {
  template <class T>
  T operator()(T y, T dy) const {
    return dy * T(0.5) / y;
  }
};

struct sigmoid_grad {
  template <class T>
  T operator()(T y, T dy) const {
    return dy * y * (T(1) - y);
  }
};

struct tanh_grad {
  template <class T>
  T operator()(T y, T dy) const {
    return dy * (T(1) - y * y);
  }
};

template <class Fn>
struct with {
  template <class T>
  using kernel = binary_same_shape_kernel<T, Fn>;
};

template <class T>
class bias_add_grad_kernel : public basic_kernel {
public:
  explicit bias_add_grad_kernel(kernel_construction& ctx) {
    auto format = ctx.attr_or("data_format", std::string{"NHWC"});
    if (format != "NHWC")
      init_ = core::unimplemented_error("BiasAddGrad supports NHWC only, got ",
                                        format);
  }

  void compute(kernel_context& ctx) override {
    const auto& g = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(ctx, g.shape().rank() >= 1,
                          core::invalid_argument_error(
                            "BiasAddGrad needs rank >= 1, got a scalar"));
    auto c = g.shape().dim(g.shape().rank() - 1);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {c}, &out));
    T* z = out->mutable_data<T>();
    std::fill_n(z, c, T(0));
    if (c == 0)
      return;
    // Row by row, so the inner loop vectorises.
    const T* gp = g.data<T>();
    for (int64_t r = 0, rows = g.num_elements() / c; r < rows; ++r, gp += c)
      for (int64_t j = 0; j < c; ++j)
        z[j] += gp[j];
  }
};

template <class T>
class broadcast_gradient_args_kernel : public cheap_kernel {
public:
  explicit broadcast_gradient_args_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    auto s0 = read_ints(ctx.input(0));
    auto s1 = read_ints(ctx.input(1));
    auto rank = std::max(s0.size(), s1.size());
    std::vector<T> r0, r1;
    for (size_t i = 0; i < rank; ++i) {
      // Axis i of the output, counted from the left; shorter shapes are
      // padded with 1s on the left.
      auto pad0 = rank - s0.size(), pad1 = rank - s1.size();
      int64_t a = i < pad0 ? 1 : s0[i - pad0];
      int64_t b = i < pad1 ? 1 : s1[i - pad1];
      ACTORFLOW_OP_REQUIRES(
        ctx, a == b || a == 1 || b == 1,
        core::invalid_argument_error("incompatible shapes for broadcasting: "
                                     "dimension ",
                                     i, " is ", a, " and ", b));
      // An input of size 1 (or padded) is summed over that axis; where both
      // are 1 both are, a no-op sum, as TensorFlow's BCast does.
      if (a == 1)
        r0.push_back(static_cast<T>(i));
      if (b == 1)
        r1.push_back(static_cast<T>(i));
    }
    for (int k = 0; k < 2; ++k) {
      const auto& r = k == 0 ? r0 : r1;
      core::tensor* out = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, ctx.allocate_output(static_cast<size_t>(k),
                                 {static_cast<int64_t>(r.size())}, &out));
      std::copy(r.begin(), r.end(), out->mutable_data<T>());
    }
  }
};

} // namespace

/// ConcatOffset: offset i is zeros but at concat_dim, where it is the sum
/// of the shapes before i there.
template <class T>
class concat_offset_kernel : public cheap_kernel {
public:
  explicit concat_offset_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    int64_t axis = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_int(ctx.input(0), "concat_dim", &axis));
    const auto& first = ctx.input(1);
    auto rank = first.num_elements();
    ACTORFLOW_OP_REQUIRES(
      ctx, first.shape().rank() == 1 && axis >= -rank && axis < rank,
      core::invalid_argument_error("ConcatOffset: concat_dim ", axis,
                                   " is out of range for shapes of rank ",
                                   rank));
    if (axis < 0)
      axis += rank;
    T at = 0;
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      const auto& s = ctx.input(i);
      ACTORFLOW_OP_REQUIRES(
        ctx, s.shape() == first.shape(),
        core::invalid_argument_error("ConcatOffset: shape ", i - 1, " is ",
                                     s.debug_string(), ", shape 0 ",
                                     first.debug_string()));
      for (int64_t d = 0; d < rank; ++d)
        ACTORFLOW_OP_REQUIRES(
          ctx, d == axis || s.data<T>()[d] == first.data<T>()[d],
          core::invalid_argument_error("ConcatOffset: shape ", i - 1,
                                       " differs from shape 0 in "
                                       "dimension ",
                                       d, ", which is not concat_dim"));
      core::tensor* out = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(ctx,
                               ctx.allocate_output(i - 1, s.shape(), &out));
      auto* o = out->mutable_data<T>();
      for (int64_t d = 0; d < rank; ++d)
        o[d] = d == axis ? at : 0;
      at += s.data<T>()[axis];
    }
  }
};

/// InvertPermutation.
template <class T>
class invert_permutation_kernel : public cheap_kernel {
public:
  explicit invert_permutation_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(
      ctx, x.shape().rank() == 1,
      core::invalid_argument_error("InvertPermutation needs a vector, got ",
                                   x.shape().to_string()));
    auto n = x.num_elements();
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, x.shape(), &out));
    auto* y = out->mutable_data<T>();
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (int64_t i = 0; i < n; ++i) {
      auto v = static_cast<int64_t>(x.data<T>()[i]);
      ACTORFLOW_OP_REQUIRES(
        ctx, v >= 0 && v < n && !seen[static_cast<size_t>(v)],
        core::invalid_argument_error("InvertPermutation: ", x.debug_string(n),
                                     " is not a permutation of 0..", n - 1));
      seen[static_cast<size_t>(v)] = true;
      y[v] = static_cast<T>(i);
    }
  }
};

void register_grad_kernels(kernel_registry& r) {
  r.add_typed<concat_offset_kernel, int32_t, int64_t>(
    "ConcatOffset", device_type, "shape_type");
  r.add_typed<invert_permutation_kernel, int32_t, int64_t>("InvertPermutation",
                                                           device_type);
  r.add_typed<with<relu_grad>::kernel, float, double>("ReluGrad", device_type);
  r.add_typed<with<softsign_grad>::kernel, float, double>("SoftsignGrad",
                                                          device_type);
  r.add_typed<with<relu6_grad>::kernel, float, double>("Relu6Grad",
                                                       device_type);
  r.add_typed<with<sigmoid_grad>::kernel, float, double>("SigmoidGrad",
                                                         device_type);
  r.add_typed<with<tanh_grad>::kernel, float, double>("TanhGrad", device_type);
  r.add_typed<with<elu_grad>::kernel, float, double>("EluGrad", device_type);
  r.add_typed<with<selu_grad>::kernel, float, double>("SeluGrad", device_type);
  r.add_typed<with<rsqrt_grad>::kernel, float, double>("RsqrtGrad",
                                                       device_type);
  r.add_typed<with<sqrt_grad>::kernel, float, double>("SqrtGrad", device_type);
  r.add_typed<bias_add_grad_kernel, float, double>("BiasAddGrad", device_type);
  r.add_typed<broadcast_gradient_args_kernel, int32_t, int64_t>(
    "BroadcastGradientArgs", device_type);
}

} // namespace actorflow::ops::cpu
