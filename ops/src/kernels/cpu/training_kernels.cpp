// The optimizers' update ops (Apply and ResourceApply GradientDescent,
// Momentum, KerasMomentum, Adagrad, AdagradV2, RMSProp, Adam), with
// TensorFlow's formulas. Each locks its variable and slot variables for
// the update, writes in place when nobody else holds a value's buffer and
// copies on write otherwise, so a reader of the old value never sees it
// change. float16 and bfloat16 compute in float.

#include "blas.hpp"
#include "kernels.hpp"
#include "onednn_matmul.hpp"
#include "parallel_split.hpp"
#include "variable_handles.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

namespace actorflow::ops::cpu {

namespace {

/// The variables of the first `n` inputs -- references, or with
/// `resources` handles into them -- locked in address order (so two
/// updates of the same variables cannot deadlock) for one update.
class locked_slots {
public:
  locked_slots(kernel_context& ctx, size_t n,
               resource_manager* resources = nullptr,
               core::dtype type = core::dtype::invalid) {
    for (size_t i = 0; i < n && status_.is_ok(); ++i) {
      std::shared_ptr<variable> var;
      if (resources != nullptr)
        status_ = variable_of(ctx, i, *resources, type, false, &var);
      else if (var = ctx.input_ref(i); var == nullptr)
        status_ = core::invalid_argument_error("input ", i,
                                               " must be a variable reference");
      vars_.push_back(std::move(var));
    }
    if (!status_.is_ok())
      return;
    std::vector<variable*> order;
    for (const auto& v : vars_)
      order.push_back(v.get());
    std::sort(order.begin(), order.end());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    for (auto* v : order)
      locks_.emplace_back(v->mutex());
  }

  const core::status& status() const noexcept {
    return status_;
  }

  /// Slot `i`'s value, ready to be written: initialised, of the gradient's
  /// shape, and its own buffer (copied first if someone else holds it).
  core::status writable(size_t i, const core::shape& grad_shape,
                        kernel_context& ctx, core::tensor** out) {
    auto& v = *vars_[i];
    auto& value = v.value_locked();
    if (!value.valid())
      return core::failed_precondition_error(
        "attempting to use uninitialized value ", v.name());
    if (value.shape() != grad_shape)
      return core::invalid_argument_error(
        "variable ", v.name(), " has shape ", value.shape().to_string(),
        ", the gradient ", grad_shape.to_string());
    if (!value.unique()) {
      core::tensor copy;
      ACTORFLOW_RETURN_IF_ERROR(value.deep_copy(
        &copy, ctx.device().allocator(core::memory_type::host)));
      value = std::move(copy);
    }
    *out = &value;
    return core::status::ok();
  }

private:
  core::status status_;
  std::vector<std::shared_ptr<variable>> vars_;
  std::vector<std::unique_lock<std::mutex>> locks_;
};

/// The element type the update computes in.
template <class T>
using compute_t = std::conditional_t<std::is_floating_point_v<T>, T, float>;

/// Reads scalar input `i` as a compute_t<T>.
template <class T>
core::status scalar_input(const kernel_context& ctx, size_t i,
                          compute_t<T>* out) {
  const auto& t = ctx.input(i);
  if (t.shape().rank() != 0)
    return core::invalid_argument_error(
      "input ", i, " must be a scalar, got shape ", t.shape().to_string());
  *out = static_cast<compute_t<T>>(t.scalar_value<T>());
  return core::status::ok();
}

/// The shared frame of the apply kernels: `Update` has `slots` (the
/// number of variable inputs), `scalars` (their input indices, after the
/// variables), `grad` (the gradient's input index) and
/// `apply(slot values, scalars, g, attrs)`, element-wise. The variables
/// are references (Apply*, which output the first) or with `Resource`
/// handles (ResourceApply*, no output).
template <class T, class Update, bool Resource>
class apply_kernel : public basic_kernel {
public:
  explicit apply_kernel(kernel_construction& ctx)
    : resources_(Resource ? &ctx.resources() : nullptr),
      nesterov_(ctx.attr_or("use_nesterov", false)),
      update_slots_(ctx.attr_or("update_slots", true)) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    using C = compute_t<T>;
    constexpr size_t slots = Update::slots;
    std::array<C, Update::scalars.size()> hyper{};
    for (size_t k = 0; k < hyper.size(); ++k)
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, scalar_input<T>(ctx, Update::scalars[k], &hyper[k]));
    const auto& grad = ctx.input(Update::grad);
    locked_slots locked{ctx, slots, resources_, core::dtype_v<T>};
    ACTORFLOW_OP_REQUIRES_OK(ctx, locked.status());
    std::array<core::tensor*, slots> values{};
    for (size_t i = 0; i < slots; ++i)
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, locked.writable(i, grad.shape(), ctx, &values[i]));
    std::array<T*, slots> p{};
    for (size_t i = 0; i < slots; ++i)
      p[i] = values[i]->template mutable_data<T>();
    const T* g = grad.template data<T>();
    auto n = grad.num_elements();
    parallel_split split{&ctx, n >= parallel_threshold};
    split.for_range(n, [&](int64_t begin, int64_t end) {
      for (int64_t j = begin; j < end; ++j) {
        std::array<C, slots> x{};
        for (size_t i = 0; i < slots; ++i)
          x[i] = static_cast<C>(p[i][j]);
        Update::apply(x, hyper, static_cast<C>(g[j]), nesterov_, update_slots_);
        for (size_t i = 0; i < slots; ++i)
          p[i][j] = static_cast<T>(x[i]);
      }
    });
    if constexpr (!Resource)
      ctx.set_output_ref(0, ctx.input_ref(0));
  }

private:
  resource_manager* resources_;
  bool nesterov_;
  bool update_slots_;
};

/// var -= alpha * delta.
struct gradient_descent {
  static constexpr size_t slots = 1;
  static constexpr std::array<size_t, 1> scalars{1}; // alpha
  static constexpr size_t grad = 2;

  template <class C>
  static void apply(std::array<C, 1>& x, const std::array<C, 1>& h, C g, bool,
                    bool) {
    x[0] -= h[0] * g;
  }
};

/// accum = accum * momentum + grad; var -= lr * accum, or with Nesterov
/// var -= lr * grad + lr * momentum * accum.
struct momentum {
  static constexpr size_t slots = 2;
  static constexpr std::array<size_t, 2> scalars{2, 4}; // lr, momentum
  static constexpr size_t grad = 3;

  template <class C>
  static void apply(std::array<C, 2>& x, const std::array<C, 2>& h, C g,
                    bool nesterov, bool) {
    auto lr = h[0], mu = h[1];
    x[1] = x[1] * mu + g;
    x[0] -= nesterov ? g * lr + x[1] * mu * lr : x[1] * lr;
  }
};

/// Keras' SGD with momentum: accum = accum * momentum - lr * grad; var +=
/// accum, or with Nesterov var += accum * momentum - lr * grad.
struct keras_momentum {
  static constexpr size_t slots = 2;
  static constexpr std::array<size_t, 2> scalars{2, 4}; // lr, momentum
  static constexpr size_t grad = 3;

  template <class C>
  static void apply(std::array<C, 2>& x, const std::array<C, 2>& h, C g,
                    bool nesterov, bool) {
    auto lr = h[0], mu = h[1];
    x[1] = x[1] * mu - g * lr;
    x[0] += nesterov ? x[1] * mu - g * lr : x[1];
  }
};

/// accum += grad^2 (unless update_slots is false); var -= lr * grad /
/// sqrt(accum).
struct adagrad {
  static constexpr size_t slots = 2;
  static constexpr std::array<size_t, 1> scalars{2}; // lr
  static constexpr size_t grad = 3;

  template <class C>
  static void apply(std::array<C, 2>& x, const std::array<C, 1>& h, C g, bool,
                    bool update_slots) {
    if (update_slots)
      x[1] += g * g;
    x[0] -= h[0] * g / std::sqrt(x[1]);
  }
};

/// Keras' Adagrad: accum += grad^2 (unless update_slots is false); var -=
/// lr * grad / (sqrt(accum) + epsilon).
struct adagrad_v2 {
  static constexpr size_t slots = 2;
  static constexpr std::array<size_t, 2> scalars{2, 3}; // lr, epsilon
  static constexpr size_t grad = 4;

  template <class C>
  static void apply(std::array<C, 2>& x, const std::array<C, 2>& h, C g, bool,
                    bool update_slots) {
    if (update_slots)
      x[1] += g * g;
    x[0] -= h[0] * g / (std::sqrt(x[1]) + h[1]);
  }
};

/// ms = rho * ms + (1 - rho) * grad^2; mom = momentum * mom + lr * grad /
/// sqrt(ms + epsilon); var -= mom.
struct rms_prop {
  static constexpr size_t slots = 3;
  // lr, rho, momentum, epsilon
  static constexpr std::array<size_t, 4> scalars{3, 4, 5, 6};
  static constexpr size_t grad = 7;

  template <class C>
  static void apply(std::array<C, 3>& x, const std::array<C, 4>& h, C g, bool,
                    bool) {
    auto lr = h[0], rho = h[1], mu = h[2], eps = h[3];
    x[1] += (g * g - x[1]) * (C(1) - rho);
    x[2] = x[2] * mu + g * lr / std::sqrt(x[1] + eps);
    x[0] -= x[2];
  }
};

/// lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t); m += (grad - m) * (1 -
/// beta1); v += (grad^2 - v) * (1 - beta2); var -= lr_t * m / (sqrt(v) +
/// epsilon), or with Nesterov lr_t * (m * beta1 + (1 - beta1) * grad) /
/// (sqrt(v) + epsilon).
struct adam {
  static constexpr size_t slots = 3;
  // beta1_power, beta2_power, lr, beta1, beta2, epsilon
  static constexpr std::array<size_t, 6> scalars{3, 4, 5, 6, 7, 8};
  static constexpr size_t grad = 9;

  template <class C>
  static void apply(std::array<C, 3>& x, const std::array<C, 6>& h, C g,
                    bool nesterov, bool) {
    auto b1p = h[0], b2p = h[1], lr = h[2], b1 = h[3], b2 = h[4], eps = h[5];
    auto lr_t = lr * std::sqrt(C(1) - b2p) / (C(1) - b1p);
    x[1] += (g - x[1]) * (C(1) - b1);
    x[2] += (g * g - x[2]) * (C(1) - b2);
    auto step = nesterov ? x[1] * b1 + (C(1) - b1) * g : x[1];
    x[0] -= step * lr_t / (std::sqrt(x[2]) + eps);
  }
};

/// var -= alpha * op(a) op(b) (`_MatMulApplyGradientDescent`, made by the
/// fusion pass from a weight's gradient product and its update): the
/// product goes into the variable as the GEMM writes it -- oneDNN's
/// output scale and sum post-op for float32, OpenBLAS's alpha and beta = 1
/// for double -- so the gradient is never stored and the variable is
/// read and written once rather than twice.
template <class T>
class matmul_gradient_descent_kernel : public basic_kernel {
public:
  explicit matmul_gradient_descent_kernel(kernel_construction& ctx) {
    init_ = product_.read(ctx);
  }

  void compute(kernel_context& ctx) override {
    T alpha{};
    ACTORFLOW_OP_REQUIRES_OK(ctx, scalar_input<T>(ctx, 1, &alpha));
    const auto& a = ctx.input(2);
    const auto& b = ctx.input(3);
    int64_t m = 0, n = 0, k = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, product_.dims(a, b, &m, &n, &k));
    locked_slots locked{ctx, 1};
    ACTORFLOW_OP_REQUIRES_OK(ctx, locked.status());
    core::tensor* var = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             locked.writable(0, core::shape{m, n}, ctx, &var));
    if (m > 0 && n > 0 && k > 0) {
      auto lda = a.shape().dim(1), ldb = b.shape().dim(1);
      if constexpr (std::is_same_v<T, float>)
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, dnn_.accumulate(ctx, product_.transpose_a, product_.transpose_b,
                               m, n, k, a.data<float>(), lda, b.data<float>(),
                               ldb, -alpha, var->mutable_data<float>(), n));
      else
        gemm<T>(&ctx, product_.transpose_a, product_.transpose_b, m, n, k,
                a.data<T>(), lda, b.data<T>(), ldb, T(1),
                var->mutable_data<T>(), n, -alpha);
    }
    ctx.set_output_ref(0, ctx.input_ref(0));
  }

private:
  product_attrs product_;
  onednn_matmul dnn_;
};

template <class Update, bool Resource>
struct for_update {
  template <class T>
  using kernel = apply_kernel<T, Update, Resource>;
};

/// Registers `Apply<name>` and `ResourceApply<name>` for `Update`.
template <class Update>
void add_apply(kernel_registry& r, const std::string& name) {
  r.add_typed<for_update<Update, false>::template kernel, Eigen::half,
              Eigen::bfloat16, float, double>("Apply" + name, device_type);
  r.add_typed<for_update<Update, true>::template kernel, Eigen::half,
              Eigen::bfloat16, float, double>("ResourceApply" + name,
                                              device_type);
}

} // namespace

void register_training_kernels(kernel_registry& r) {
  r.add_typed<matmul_gradient_descent_kernel, float, double>(
    "_MatMulApplyGradientDescent", device_type);
  add_apply<gradient_descent>(r, "GradientDescent");
  add_apply<momentum>(r, "Momentum");
  add_apply<keras_momentum>(r, "KerasMomentum");
  add_apply<adagrad>(r, "Adagrad");
  add_apply<adagrad_v2>(r, "AdagradV2");
  add_apply<rms_prop>(r, "RMSProp");
  add_apply<adam>(r, "Adam");
}

} // namespace actorflow::ops::cpu
