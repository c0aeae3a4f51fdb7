// SpaceToBatchND and BatchToSpaceND: blocks of the spatial dimensions
// moved into the batch and back (what TensorFlow writes around a dilated
// convolution: Keras' Conv1D/Conv2D with dilation_rate > 1).

#include "kernels.hpp"

#include <cstring>

namespace actorflow::ops::cpu {

namespace {

/// SpaceToBatchND(input, block_shape, paddings) when `ToBatch`, else
/// BatchToSpaceND(input, block_shape, crops): input [batch, spatial...,
/// rest...] with one block size and (before, after) pair per spatial
/// dimension. The block offsets are the output batch's major part, as in
/// TensorFlow.
template <bool ToBatch>
class space_batch_kernel : public basic_kernel {
public:
  explicit space_batch_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const char* op = ToBatch ? "SpaceToBatchND" : "BatchToSpaceND";
    const auto& x = ctx.input(0);
    auto block = read_ints(ctx.input(1));
    auto edges = read_ints(ctx.input(2));
    auto m = static_cast<int>(block.size());
    int rank = x.shape().rank();
    ACTORFLOW_OP_REQUIRES(
      ctx, m >= 1 && rank >= 1 + m && edges.size() == 2 * block.size(),
      core::invalid_argument_error(op, " needs block_shape [M] with M >= 1, ",
                                   ToBatch ? "paddings" : "crops",
                                   " [M, 2] and an input of rank > M, "
                                   "got M = ",
                                   m, " and ", x.shape().to_string()));
    int64_t blocks = 1;
    for (int j = 0; j < m; ++j) {
      auto u = static_cast<size_t>(j);
      ACTORFLOW_OP_REQUIRES(
        ctx, block[u] >= 1 && edges[2 * u] >= 0 && edges[2 * u + 1] >= 0,
        core::invalid_argument_error(op, " needs block sizes >= 1 and ",
                                     ToBatch ? "paddings" : "crops", " >= 0"));
      blocks *= block[u];
    }
    // The space side [batch, spatial...] and the batch side, in the
    // space's coordinates before padding or after cropping.
    auto dims = x.shape().dims();
    auto space = dims, batched = dims;
    if (ToBatch) {
      for (int j = 0; j < m; ++j) {
        auto u = static_cast<size_t>(j);
        auto padded = dims[u + 1] + edges[2 * u] + edges[2 * u + 1];
        ACTORFLOW_OP_REQUIRES(ctx, padded % block[u] == 0,
                              core::invalid_argument_error(
                                op, ": padded dimension ", j + 1, " (", padded,
                                ") is not a multiple of its block size ",
                                block[u]));
        batched[u + 1] = padded / block[u];
      }
      batched[0] = dims[0] * blocks;
    } else {
      ACTORFLOW_OP_REQUIRES(
        ctx, dims[0] % blocks == 0,
        core::invalid_argument_error(op, ": the batch (", dims[0],
                                     ") is not a multiple of the blocks (",
                                     blocks, ")"));
      space[0] = dims[0] / blocks;
      for (int j = 0; j < m; ++j) {
        auto u = static_cast<size_t>(j);
        space[u + 1] = dims[u + 1] * block[u] - edges[2 * u] - edges[2 * u + 1];
        ACTORFLOW_OP_REQUIRES(ctx, space[u + 1] >= 0,
                              core::invalid_argument_error(
                                op, ": crops larger than dimension ", j + 1));
      }
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      ctx.allocate_output(0, core::shape{ToBatch ? batched : space}, &out));
    auto element = core::size_of(x.dtype());
    size_t row = element;
    for (int d = 1 + m; d < rank; ++d)
      row *= static_cast<size_t>(dims[static_cast<size_t>(d)]);
    const auto* src = static_cast<const char*>(x.raw_data());
    auto* dst = static_cast<char*>(out->raw_mutable_data());
    if (ToBatch)
      std::memset(dst, 0, out->bytes());
    // Walks every batch-side position (b, y...): its block offsets i...
    // and sample n give the space-side position n, y * block + i - before.
    auto batch = space[0];
    std::vector<int64_t> at(static_cast<size_t>(m) + 1, 0);
    std::vector<int64_t> inner(static_cast<size_t>(m));
    int64_t positions = batched[0];
    for (int j = 0; j < m; ++j)
      positions *= batched[static_cast<size_t>(j) + 1];
    for (int64_t p = 0; p < positions; ++p) {
      // The block offsets, row-major over the block shape.
      auto offset = at[0] / batch;
      for (int j = m - 1; j >= 0; --j) {
        auto u = static_cast<size_t>(j);
        inner[u] = offset % block[u];
        offset /= block[u];
      }
      int64_t space_index = at[0] % batch;
      bool inside = true;
      for (int j = 0; j < m; ++j) {
        auto u = static_cast<size_t>(j);
        auto s = at[u + 1] * block[u] + inner[u] - edges[2 * u];
        inside = inside && s >= 0 && s < space[u + 1];
        space_index = space_index * space[u + 1] + s;
      }
      if (inside && ToBatch)
        std::memcpy(dst + p * row, src + space_index * row, row);
      else if (inside)
        std::memcpy(dst + space_index * row, src + p * row, row);
      for (int d = m; d >= 0; --d) {
        auto u = static_cast<size_t>(d);
        if (++at[u] < batched[u])
          break;
        at[u] = 0;
      }
    }
  }
};

} // namespace

void register_space_batch_kernels(kernel_registry& r) {
  r.add_any<space_batch_kernel<true>>("SpaceToBatchND", device_type);
  r.add_any<space_batch_kernel<false>>("BatchToSpaceND", device_type);
}

} // namespace actorflow::ops::cpu
