#pragma once

// Internal: float32 matrix products through oneDNN.

#include <cstdint>
#include <memory>

#include "actorflow/core/status.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::cpu {

/// C = op(A) op(B) (+ a bias per column) (then Relu, or ReluGrad) for
/// row-major float32 matrices, through oneDNN's matmul primitive.
///
/// oneDNN picks its JIT kernel by the CPU it finds (AVX-512 brgemm where
/// there is one), so the speed of float32 products does not hang on which
/// kernels OpenBLAS was told to use; on the dev machine it runs ~10 % more
/// GFLOP/s per core than OpenBLAS, and the bias and Relu come as post-ops
/// at no pass of their own (TensorFlow's _FusedMatMul is oneDNN's too).
///
/// One object per kernel keeps the primitives it made, by shape. A large
/// product is cut over the device's pool (`parallel_split`) along the
/// longer side of C, each block run by oneDNN on one OpenMP thread.
class onednn_matmul {
public:
  onednn_matmul();

  ~onednn_matmul();

  /// What becomes of a product as it is written.
  struct epilogue {
    /// Added to every row unless null: [n].
    const float* bias = nullptr;
    /// Then Relu.
    bool relu = false;
    /// Unless null, the product only where these are positive and 0
    /// elsewhere (ReluGrad of the product): [m, n] with C's leading
    /// dimension. Each block applies it while the block is in its thread's
    /// cache.
    const float* relu_features = nullptr;
  };

  /// The product of op(A) [m, k] and op(B) [k, n] into C [m, n] (leading
  /// dimensions lda, ldb, ldc), then `after`. m, n and k are positive.
  /// Unless `split`, it runs on the calling thread alone (a caller that
  /// spreads many products over the pool itself).
  core::status multiply(kernel_context& ctx, bool trans_a, bool trans_b,
                        int64_t m, int64_t n, int64_t k, const float* a,
                        int64_t lda, const float* b, int64_t ldb,
                        const epilogue& after, float* c, int64_t ldc,
                        bool split = true);

  /// C += alpha op(A) op(B), the same shapes: oneDNN scales the product
  /// and adds it to C as it writes it (a runtime output scale and a sum
  /// post-op), so no product is stored on the way.
  core::status accumulate(kernel_context& ctx, bool trans_a, bool trans_b,
                          int64_t m, int64_t n, int64_t k, const float* a,
                          int64_t lda, const float* b, int64_t ldb, float alpha,
                          float* c, int64_t ldc);

private:
  /// What `multiply` and `accumulate` share: `scale` is null for a plain
  /// product, else alpha (with C added to).
  core::status run(kernel_context& ctx, bool trans_a, bool trans_b, int64_t m,
                   int64_t n, int64_t k, const float* a, int64_t lda,
                   const float* b, int64_t ldb, const epilogue& after,
                   const float* scale, float* c, int64_t ldc, bool may_split);

  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace actorflow::ops::cpu
