// Transpose and Tile on the GPU: one strided copy each, the permutation
// and the multiples in host memory.

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

/// Tile: output dimension d, of x's size n times m, is walked as two box
/// dimensions, the copy k < m (read at stride 0) and the element j < n
/// (read at x's stride); dimensions of one element are left out.
class tile_kernel : public cheap_kernel {
public:
  explicit tile_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto multiples = cpu::read_ints(ctx.input(1));
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
    auto in_strides = cpu::strides_of(x.shape());
    auto out_strides = cpu::strides_of(out_shape);
    std::vector<int64_t> box, from, to;
    auto add = [&](int64_t n, int64_t src, int64_t dst) {
      if (n == 1)
        return;
      box.push_back(n);
      from.push_back(src);
      to.push_back(dst);
    };
    for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
      auto n = x.shape().dim(static_cast<int>(d));
      add(multiples[d], 0, n * out_strides[d]);
      add(n, in_strides[d], out_strides[d]);
    }
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, copy_strided(device_of(ctx), x, *out, box, from, to));
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
