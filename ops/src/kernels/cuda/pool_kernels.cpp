// MaxPool, AvgPool and their gradients on the GPU (float, double), over
// NHWC images; the CUDA code is in pooling.cu.

#include "../common/checks.hpp"
#include "gpu_kernels.hpp"
#include "plans.hpp"

namespace actorflow::ops::gpu {

namespace {

core::shape output_of(const pool_geometry& g) {
  return {g.batch, g.out_h, g.out_w, g.channels};
}

template <class T, bool Max>
class pool_kernel : public cheap_kernel {
public:
  explicit pool_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, true);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    pool_geometry g;
    ACTORFLOW_OP_REQUIRES_OK(ctx, plan_pool(attrs_, x.shape(), &g));
    core::tensor* y = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, output_of(g), &y));
    elem type;
    ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
    auto& dev = device_of(ctx);
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(pool(type, Max, x.raw_data(), y->raw_mutable_data(), g,
                         dev.compute_stream()),
                    Max ? "MaxPool" : "AvgPool"));
  }

private:
  common::window_attrs attrs_;
};

/// MaxPoolGrad(orig_input, orig_output, grad) and AvgPoolGrad(
/// orig_input_shape in host memory, grad).
template <class T, bool Max>
class pool_grad_kernel : public cheap_kernel {
public:
  explicit pool_grad_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, true);
  }

  void compute(kernel_context& ctx) override {
    const auto& grad = ctx.input(Max ? 2 : 1);
    core::shape xs = Max ? ctx.input(0).shape()
                         : core::shape{common::read_ints(ctx.input(0))};
    pool_geometry g;
    ACTORFLOW_OP_REQUIRES_OK(ctx, plan_pool(attrs_, xs, &g));
    ACTORFLOW_OP_REQUIRES(ctx, grad.shape() == output_of(g),
                          core::invalid_argument_error(
                            "grad has shape ", grad.shape().to_string(),
                            ", the pooling gives ", output_of(g).to_string()));
    core::tensor* dx = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, xs, &dx));
    elem type;
    ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
    auto stream = device_of(ctx).compute_stream();
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(Max ? max_pool_grad(type, ctx.input(0).raw_data(),
                                        grad.raw_data(), dx->raw_mutable_data(),
                                        g, stream)
                        : avg_pool_grad(type, grad.raw_data(),
                                        dx->raw_mutable_data(), g, stream),
                    Max ? "MaxPoolGrad" : "AvgPoolGrad"));
  }

private:
  common::window_attrs attrs_;
};

template <bool Max>
struct pool_op {
  template <class T>
  using kernel = pool_kernel<T, Max>;
  template <class T>
  using grad = pool_grad_kernel<T, Max>;
};

} // namespace

void register_pool_kernels(kernel_registry& r) {
  r.add_typed<pool_op<true>::kernel, float, double>("MaxPool", device_type);
  r.add_typed<pool_op<false>::kernel, float, double>("AvgPool", device_type);
  r.add_typed<pool_op<true>::grad, float, double>("MaxPoolGrad", device_type);
  r.add_typed<pool_op<false>::grad, float, double>("AvgPoolGrad", device_type,
                                                   "T", host_memory({0}, {}));
}

} // namespace actorflow::ops::gpu
