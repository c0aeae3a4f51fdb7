#include "kernels.hpp"

#include <unsupported/Eigen/CXX11/Tensor>

namespace actorflow::ops::cpu {

namespace {

/// max(x, 0), element-wise.
template <class T>
class relu_kernel : public basic_kernel {
public:
  explicit relu_kernel(kernel_construction&) {
    // nop
  }

  bool is_expensive() const noexcept override {
    return false;
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, x.shape(), &out));
    auto z = out->mutable_flat<T>();
    auto expr = x.flat<T>().cwiseMax(static_cast<T>(0));
    if (x.num_elements() >= parallel_threshold)
      z.device(eigen_device(ctx)) = expr;
    else
      z = expr;
  }
};

} // namespace

void register_relu_kernels(kernel_registry& r) {
  r.add_typed<relu_kernel, float, double, int32_t, int64_t>("Relu",
                                                            device_type);
}

} // namespace actorflow::ops::cpu
