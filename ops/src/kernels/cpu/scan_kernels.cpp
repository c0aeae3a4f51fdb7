// Cumsum and Cumprod: running sums and products along one axis, from the
// end with `reverse`, each element left out of its own with `exclusive`.

#include "kernels.hpp"

namespace actorflow::ops::cpu {

namespace {

template <class T, bool Product>
class scan_kernel : public basic_kernel {
public:
  explicit scan_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("exclusive", &exclusive_);
    if (init_.is_ok())
      init_ = ctx.get_attr("reverse", &reverse_);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    int64_t axis = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, read_scalar_int(ctx.input(1), "axis", &axis));
    int a = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, canonical_axis(axis, x.shape().rank(), &a));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, x.shape(), &out));
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < a; ++d)
      outer *= x.shape().dim(d);
    for (int d = a + 1; d < x.shape().rank(); ++d)
      inner *= x.shape().dim(d);
    auto n = x.shape().dim(a);
    const T* src = x.data<T>();
    T* dst = out->mutable_data<T>();
    // Element k of a line at base + k * inner, walked in scan order.
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        auto base = o * n * inner + i;
        T acc = Product ? T{1} : T{0};
        for (int64_t j = 0; j < n; ++j) {
          auto at = base + (reverse_ ? n - 1 - j : j) * inner;
          if (exclusive_)
            dst[at] = acc;
          acc = Product ? acc * src[at] : acc + src[at];
          if (!exclusive_)
            dst[at] = acc;
        }
      }
  }

private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

template <class T>
using cumsum_kernel = scan_kernel<T, false>;

template <class T>
using cumprod_kernel = scan_kernel<T, true>;

} // namespace

void register_scan_kernels(kernel_registry& r) {
  r.add_typed<cumsum_kernel, float, double, int32_t, int64_t>("Cumsum",
                                                              device_type);
  r.add_typed<cumprod_kernel, float, double, int32_t, int64_t>("Cumprod",
                                                               device_type);
}

} // namespace actorflow::ops::cpu
