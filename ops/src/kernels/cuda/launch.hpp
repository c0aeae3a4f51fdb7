#pragma once

// Internal: the CUDA launchers the GPU kernels call. Plain types only, so
// that this header is read by nvcc (the .cu files) and by the C++ kernels
// alike; every launcher queues on `stream` and returns the launch's error.

#include <cstdint>

#include <cuda_runtime.h>

namespace actorflow::ops::gpu {

/// The element types the CUDA code knows.
enum class elem : int { f16, bf16, f32, f64, i32, i64, b8, u8 };

/// Element-wise functions of two operands (the second is the gradient's
/// input for the *Grad functions: f(x, y) = y's gradient through x).
enum class binary_fn : int {
  add,
  sub,
  mul,
  div,
  maximum,
  minimum,
  pow,
  squared_difference,
  less,
  less_equal,
  greater,
  greater_equal,
  equal,
  not_equal,
  relu_grad,    ///< (gradient, features) -> gradient where features > 0
  tanh_grad,    ///< (y, dy) -> dy * (1 - y^2)
  sigmoid_grad, ///< (y, dy) -> dy * y * (1 - y)
  sqrt_grad,    ///< (y, dy) -> dy / (2 y)
  rsqrt_grad,   ///< (y, dy) -> -dy y^3 / 2
};

/// Whether `fn` yields a bool.
inline bool is_comparison(binary_fn fn) {
  return fn >= binary_fn::less && fn <= binary_fn::not_equal;
}

/// Element-wise functions of one operand.
enum class unary_fn : int {
  neg,
  abs,
  exp,
  log,
  sqrt,
  rsqrt,
  square,
  tanh,
  sigmoid,
  relu,
  relu6,
  reciprocal,
  sign,
  floor,
  ceil,
  log1p,
  sin,
  cos,
};

/// The most dimensions a broadcasting operation handles (as TensorFlow's
/// GPU kernels: shapes are first folded, adjacent dimensions that
/// broadcast alike merged).
inline constexpr int max_rank = 6;

/// An output's dimensions and each operand's strides in elements (0 along
/// a dimension it is broadcast over).
struct broadcast_index {
  int rank = 0;
  int64_t dims[max_rank] = {};
  int64_t x_strides[max_rank] = {};
  int64_t y_strides[max_rank] = {};
};

cudaError_t binary(binary_fn fn, elem type, const void* x, const void* y,
                   void* z, int64_t n, const broadcast_index& index,
                   cudaStream_t stream);

cudaError_t unary(unary_fn fn, elem type, const void* x, void* y, int64_t n,
                  cudaStream_t stream);

cudaError_t cast(elem from, elem to, const void* x, void* y, int64_t n,
                 cudaStream_t stream);

/// Sets `n` elements of `y` to the value at `value` (host memory, one
/// element of `type`).
cudaError_t fill(elem type, const void* value, void* y, int64_t n,
                 cudaStream_t stream);

enum class reduce_fn : int { sum, mean, max, min, prod };

/// How a reduction of [outer, mid, inner] over `mid` is cut (plan_reduce,
/// plans.hpp). With `tiles` > 0, blocks of 32 columns x 8 rows each reduce
/// a slice of `rows_per_chunk` rows of 32 neighbouring columns; with
/// `chunks` > 1 their results are `chunks` partial rows per outer index
/// (in scratch memory), which a second launch reduces. Otherwise one block
/// per output row (inner == 1) or one thread per output.
struct reduce_plan {
  int64_t outer = 0;
  int64_t mid = 0;
  int64_t inner = 0;
  int64_t tiles = 0;  ///< Column tiles of 32; 0: not tiled.
  int64_t chunks = 1; ///< Slices of `mid` reduced apart.
  int64_t rows_per_chunk = 0;

  /// The elements of scratch memory the reduction needs (0: none).
  int64_t partial_elements() const {
    return chunks > 1 ? outer * chunks * inner : 0;
  }
};

/// Reduces `x`, viewed as [plan.outer, plan.mid, plan.inner], over `mid`
/// into `y` ([outer, inner]); float, double. `partials` holds
/// `plan.partial_elements()` elements of the type. The same plan gives
/// the same sums in the same order on every run (no atomics).
cudaError_t reduce(reduce_fn fn, elem type, const void* x, void* y,
                   const reduce_plan& plan, void* partials,
                   cudaStream_t stream);

/// y[r, c] = x[r, c] + bias[c], then max(0, .) if `relu`.
cudaError_t bias_add(elem type, const void* x, const void* bias, void* y,
                     int64_t rows, int64_t cols, bool relu,
                     cudaStream_t stream);

/// Row-wise softmax (or log-softmax) of `rows` x `cols`.
cudaError_t softmax(elem type, const void* logits, void* y, int64_t rows,
                    int64_t cols, bool log, cudaStream_t stream);

/// Softmax cross-entropy per row: loss[r] and backprop = softmax - labels.
/// Sparse: `labels` holds one class per row (int32 or int64, `label_type`);
/// a class out of range gives NaN, as TensorFlow's GPU kernel does.
cudaError_t softmax_xent(elem type, const void* logits, const void* labels,
                         elem label_type, bool sparse, void* loss,
                         void* backprop, int64_t rows, int64_t cols,
                         cudaStream_t stream);

/// The optimizers' updates, in place on `var` (and its slots); scalars
/// are host values.
cudaError_t apply_gradient_descent(elem type, void* var, double alpha,
                                   const void* delta, int64_t n,
                                   cudaStream_t stream);

cudaError_t apply_momentum(elem type, void* var, void* accum, double lr,
                           const void* grad, double momentum, bool nesterov,
                           int64_t n, cudaStream_t stream);

cudaError_t apply_adam(elem type, void* var, void* m, void* v,
                       double beta1_power, double beta2_power, double lr,
                       double beta1, double beta2, double epsilon,
                       const void* grad, bool nesterov, int64_t n,
                       cudaStream_t stream);

/// A box of elements copied between two strided layouts (strides in
/// elements): Transpose, and the padding, cropping and filter layouts of
/// the convolutions.
struct box_index {
  int rank = 0;
  int64_t dims[max_rank] = {};
  int64_t src_strides[max_rank] = {};
  int64_t dst_strides[max_rank] = {};
};

/// Copies `box` from `src` to `dst`, elements of `elem_bytes` (1, 2, 4
/// or 8) bytes.
cudaError_t copy_box(int elem_bytes, const void* src, void* dst,
                     const box_index& box, cudaStream_t stream);

/// How a pooling window slides over an NHWC image (TensorFlow's SAME or
/// VALID geometry, computed on the host).
struct pool_geometry {
  int64_t batch = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t channels = 0;
  int64_t out_h = 0;
  int64_t out_w = 0;
  int64_t k_h = 1;
  int64_t k_w = 1;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_top = 0;
  int64_t pad_left = 0;
};

/// MaxPool (`max`) or AvgPool of `x` into `y`; positions outside the
/// image are skipped (AvgPool divides by those inside); float, double.
cudaError_t pool(elem type, bool max, const void* x, void* y,
                 const pool_geometry& g, cudaStream_t stream);

/// MaxPoolGrad: each input element gets the gradients of the windows whose
/// first maximum (in row-major order, as the CPU's kernel) it is; `x` is
/// the pooling's input. Each thread gathers for one input element: no
/// atomics, the same sums on every run.
cudaError_t max_pool_grad(elem type, const void* x, const void* dy, void* dx,
                          const pool_geometry& g, cudaStream_t stream);

/// AvgPoolGrad: each input element gets dy / count of every window
/// covering it, gathered as `max_pool_grad` does.
cudaError_t avg_pool_grad(elem type, const void* dy, void* dx,
                          const pool_geometry& g, cudaStream_t stream);

/// Completes FusedBatchNorm's statistics from the batch's `mean` and
/// unbiased variance over `rows` rows: `batch_mean`/`batch_var` blended
/// as (1 - factor) * running + factor * batch (`running_*` null: the batch
/// alone), `saved_mean`/`saved_var` the mean and biased variance (the
/// grad's reserve spaces); float.
cudaError_t batch_norm_statistics(const float* mean, const float* var,
                                  const float* running_mean,
                                  const float* running_var, double factor,
                                  int64_t rows, int64_t channels,
                                  float* batch_mean, float* batch_var,
                                  float* saved_mean, float* saved_var,
                                  cudaStream_t stream);

/// inv[c] = 1 / sqrt(var[c] + epsilon); float.
cudaError_t inverse_std(const float* var, double epsilon, float* inv,
                        int64_t channels, cudaStream_t stream);

/// FusedBatchNormGrad with is_training false (the statistics are
/// constants): dx = dy * scale * inv, dscale = sum(dy * (x - mean) * inv),
/// doffset = sum(dy), over the `rows` rows of `channels` channels; float.
cudaError_t batch_norm_frozen_grad(const float* dy, const float* x,
                                   const float* scale, const float* mean,
                                   const float* inv, float* dx, float* dscale,
                                   float* doffset, int64_t rows,
                                   int64_t channels, cudaStream_t stream);

} // namespace actorflow::ops::gpu
