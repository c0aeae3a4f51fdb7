#include "elementwise.hpp"
#include "kernels.hpp"

#include <unsupported/Eigen/CXX11/Tensor>

namespace actorflow::ops::cpu {

namespace {

template <class T>
inline constexpr bool is_castable
  = std::disjunction_v<std::is_arithmetic<T>, std::is_same<T, Eigen::half>,
                       std::is_same<T, Eigen::bfloat16>>;

/// Converts between dtypes; the conversion for the node's (SrcT, DstT) is
/// chosen once, when the kernel is built.
class cast_kernel : public cheap_kernel {
public:
  /// Converts elements [begin, end) of x into y.
  using convert_fn = void (*)(const core::tensor& x, core::tensor& y,
                              int64_t begin, int64_t end);

  explicit cast_kernel(kernel_construction& ctx) {
    core::dtype src = core::dtype::invalid, dst = core::dtype::invalid;
    init_ = ctx.get_attr("SrcT", &src);
    if (init_.is_ok())
      init_ = ctx.get_attr("DstT", &dst);
    if (init_.is_ok() && ctx.attr_or("Truncate", false))
      init_ = core::unimplemented_error(
        "Cast with Truncate=true (truncating rather than rounding)");
    if (!init_.is_ok())
      return;
    core::visit_dtype(src, [&](auto s) {
      core::visit_dtype(dst, [&](auto d) {
        using S = decltype(s);
        using D = decltype(d);
        if constexpr (is_castable<S> && is_castable<D>)
          convert_ = [](const core::tensor& x, core::tensor& y, int64_t begin,
                        int64_t end) {
            // static_cast, as Eigen's cast, in a loop the compiler
            // vectorises (Eigen's uint8 -> float is element by element).
            const auto* xp = x.data<S>();
            auto* yp = y.mutable_data<D>();
            for (auto i = begin; i < end; ++i)
              yp[i] = static_cast<D>(xp[i]);
          };
      });
    });
    if (convert_ == nullptr)
      init_ = core::unimplemented_error("no Cast from ", core::to_string(src),
                                        " to ", core::to_string(dst));
  }

  void compute(kernel_context& ctx) override {
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, ctx.input(0).shape(), &out));
    const auto& x = ctx.input(0);
    for_elements(ctx, x.num_elements(), [&](int64_t begin, int64_t end) {
      convert_(x, *out, begin, end);
    });
  }

private:
  convert_fn convert_ = nullptr;
};

/// output = condition ? t : e, element-wise (or one choice for a scalar
/// condition, or one per row of t for a vector condition).
template <class T>
class select_kernel : public cheap_kernel {
public:
  explicit select_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& c = ctx.input(0);
    const auto& t = ctx.input(1);
    const auto& e = ctx.input(2);
    ACTORFLOW_OP_REQUIRES(
      ctx, t.shape() == e.shape(),
      core::invalid_argument_error("Select needs t and e of one shape, got ",
                                   t.shape().to_string(), " and ",
                                   e.shape().to_string()));
    if (c.shape().rank() == 0) {
      ctx.set_output(0, c.scalar_value<bool>() ? t : e);
      return;
    }
    bool rows = c.shape().rank() == 1 && t.shape().rank() > 1
                && c.shape().dim(0) == t.shape().dim(0);
    ACTORFLOW_OP_REQUIRES(
      ctx, rows || c.shape() == t.shape(),
      core::invalid_argument_error(
        "Select needs a scalar condition, one of shape ", t.shape().to_string(),
        " or a vector of its first dimension, got ", c.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, t.shape(), &out));
    const bool* cp = c.data<bool>();
    const T* tp = t.data<T>();
    const T* ep = e.data<T>();
    T* op = out->mutable_data<T>();
    auto n = t.num_elements();
    auto choices = c.num_elements();
    auto per = choices == 0 ? 0 : n / choices;
    for (int64_t k = 0; k < choices; ++k) {
      const T* from = cp[k] ? tp : ep;
      for (int64_t i = k * per; i < (k + 1) * per; ++i)
        op[i] = from[i];
    }
  }
};

} // namespace

void register_cast_select_kernels(kernel_registry& r) {
  r.add_any<cast_kernel>("Cast", device_type);
  r.add_typed<select_kernel, bool, int32_t, int64_t, Eigen::half,
              Eigen::bfloat16, float, double, std::string>("Select",
                                                           device_type);
}

} // namespace actorflow::ops::cpu
