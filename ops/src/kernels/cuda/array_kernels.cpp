// Transpose and Tile on the GPU: one strided copy each, the permutation
// and the multiples in host memory.

#include "../common/checks.hpp"
#include "actorflow/ops/array_shapes.hpp"
#include "gpu_kernels.hpp"
#include "plans.hpp"

namespace actorflow::ops::gpu {

namespace {

class transpose_kernel : public cheap_kernel {
public:
  explicit transpose_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto perm = common::read_ints(ctx.input(1));
    core::shape out_shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, transpose_shape(x.shape(), perm, &out_shape));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      copy_strided(device_of(ctx), x, *out, transpose_copy(x.shape(), perm)));
  }
};

/// Tile (plans.hpp's tile_copy).
class tile_kernel : public cheap_kernel {
public:
  explicit tile_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto multiples = common::read_ints(ctx.input(1));
    int rank = x.shape().rank();
    ACTORFLOW_OP_REQUIRES(ctx, multiples.size() == static_cast<size_t>(rank),
                          core::invalid_argument_error(
                            "Tile needs one multiple per dimension of ",
                            x.shape().to_string(), ", got ", multiples.size()));
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) {
      auto m = multiples[static_cast<size_t>(d)];
      ACTORFLOW_OP_REQUIRES(
        ctx, m >= 0,
        core::invalid_argument_error("Tile multiples must be non-negative"));
      dims.push_back(x.shape().dim(d) * m);
    }
    core::shape out_shape{dims};
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0)
      return;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      copy_strided(device_of(ctx), x, *out, tile_copy(x.shape(), multiples)));
  }
};

} // namespace

void register_array_kernels(kernel_registry& r) {
  for (auto t : {core::dtype::float16, core::dtype::bfloat16,
                 core::dtype::float32, core::dtype::float64}) {
    r.add("Transpose", device_type, t,
          &kernel_registry::make_kernel<transpose_kernel>, "T",
          host_memory({1}, {}));
    r.add("Tile", device_type, t, &kernel_registry::make_kernel<tile_kernel>,
          "T", host_memory({1}, {}));
  }
}

} // namespace actorflow::ops::gpu
