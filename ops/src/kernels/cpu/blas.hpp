#pragma once

// Internal: the one way CPU kernels multiply matrices.

#include <cstdint>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::cpu {

/// The dimensions of op(a) [m, k] times op(b) [k, n] for MatMul's rank-2
/// inputs, or why they do not multiply.
core::status product_dims(const core::tensor& a, const core::tensor& b,
                          bool transpose_a, bool transpose_b, int64_t* m,
                          int64_t* n, int64_t* k);

/// C = alpha op(A) op(B) + beta C for row-major float or double matrices
/// (op(A) is [m, k], op(B) [k, n], leading dimensions lda, ldb, ldc),
/// through OpenBLAS.
///
/// When OpenBLAS runs single-threaded (the engine's setting, see
/// `configure_cpu_blas`) and the product is large, C is cut into blocks
/// that the kernel's device thread pool computes at once: concurrent
/// kernels and the actors then share the cores with no spinning BLAS
/// threads of their own (TensorFlow's intra-op pool). `ctx` may be null
/// (no split).
template <class T>
void gemm(kernel_context* ctx, bool trans_a, bool trans_b, int64_t m, int64_t n,
          int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
          T* c, int64_t ldc, T alpha = T(1));

} // namespace actorflow::ops::cpu
