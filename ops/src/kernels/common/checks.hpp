#pragma once

// Internal: what the CPU's and the GPU's kernels both check and compute on
// the host before they run -- operands, attrs, output shapes -- whatever
// the device.

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::common {

/// Row-major strides of `s`.
std::vector<int64_t> strides_of(const core::shape& s);

/// The batch dimensions of `s` (all but the last two).
core::shape batch_of(const core::shape& s);

/// BatchMatMul(V2) of x and y: each product's m x k times k x n, the
/// operands' batches and the batch they broadcast to, and the output's
/// shape (batch, m, n).
struct batch_product {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  core::shape x_batch;
  core::shape y_batch;
  core::shape batch;
  core::shape out;
};

/// Plans BatchMatMul(V2) of shapes `x` and `y` (adjoint as asked); an
/// operand of rank < 2, unequal inner dimensions or batches that do not
/// broadcast are `invalid_argument`.
core::status plan_batch_product(const core::shape& x, const core::shape& y,
                                bool adj_x, bool adj_y, batch_product* out);

/// Offset (in matrices) of batch element `i` of `out_batch` in a tensor
/// with batch shape `batch`, which broadcasts against it.
int64_t batch_offset(int64_t i, const core::shape& batch,
                     const core::shape& out_batch);

/// Checks FusedBatchNorm's inputs (x rank 4, its channels on axis
/// `channel_axis`: 3 for NHWC, 1 for NCHW; scale, offset, mean and
/// variance [C], the last two possibly empty in training) and allocates
/// its outputs (y like x, the others [C], V3's sixth empty); sets C and
/// the rows each channel has.
core::status batch_norm_outputs(kernel_context& ctx, bool training,
                                std::vector<core::tensor*>* outs,
                                int64_t* channels, int64_t* rows,
                                int channel_axis = 3);

/// The same for FusedBatchNormGrad(y_backprop, x, scale, reserve_space_1,
/// reserve_space_2): x_backprop like x, scale and offset backprops [C],
/// two empty outputs.
core::status batch_norm_grad_outputs(kernel_context& ctx,
                                     std::vector<core::tensor*>* outs,
                                     int64_t* channels, int64_t* rows,
                                     int channel_axis = 3);

/// Reads an int32 or int64 tensor (scalar or vector) as int64 values.
std::vector<int64_t> read_ints(const core::tensor& t);

/// Reads scalar `t` (int32 or int64) after checking it is one; `what`
/// names it in the error.
core::status read_scalar_int(const core::tensor& t, const char* what,
                             int64_t* out);

/// Reads scalar string `t` after checking it is one; `what` names it in
/// the error.
core::status read_scalar_string(const core::tensor& t, const char* what,
                                std::string* out);

/// Resolves `axis` (negative counts from the end) against `rank`; an axis
/// out of [-rank, rank) is `invalid_argument`.
core::status canonical_axis(int64_t axis, int rank, int* out);

} // namespace actorflow::ops::common
