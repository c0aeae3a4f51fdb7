// Transpose on the GPU: one strided copy, the permutation in host memory.

#include "../cpu/element_copy.hpp"
#include "../cpu/kernels.hpp"
#include "actorflow/ops/array_shapes.hpp"
#include "gpu_kernels.hpp"

namespace actorflow::ops::gpu {

namespace {

class transpose_kernel : public cheap_kernel {
public:
  explicit transpose_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto perm = cpu::read_ints(ctx.input(1));
    core::shape out_shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, transpose_shape(x.shape(), perm, &out_shape));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    // Output dimension d walks input dimension perm[d].
    auto in_strides = cpu::strides_of(x.shape());
    std::vector<int64_t> from;
    for (auto p : perm)
      from.push_back(in_strides[static_cast<size_t>(p)]);
    ACTORFLOW_OP_REQUIRES_OK(ctx, copy_strided(device_of(ctx), x, *out,
                                               out_shape.dims(), from,
                                               cpu::strides_of(out_shape)));
  }
};

} // namespace

void register_array_kernels(kernel_registry& r) {
  for (auto t : {core::dtype::float16, core::dtype::bfloat16,
                 core::dtype::float32, core::dtype::float64})
    r.add("Transpose", device_type, t,
          &kernel_registry::make_kernel<transpose_kernel>, "T",
          host_memory({1}, {}));
}

} // namespace actorflow::ops::gpu
