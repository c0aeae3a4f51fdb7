#pragma once

// Internal: the one way CPU kernels multiply matrices.

#include <cstdint>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/ops/kernel_construction.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::cpu {

/// The transposes of a product's operands (MatMul's `transpose_a` and
/// `transpose_b` attrs, which the fused products share) and the
/// dimensions they give.
struct product_attrs {
  bool transpose_a = false;
  bool transpose_b = false;

  /// Reads both attrs of the node `ctx` makes a kernel for.
  core::status read(const kernel_construction& ctx);

  /// The dimensions of op(a) [m, k] times op(b) [k, n] for rank-2 `a` and
  /// `b`, or why they do not multiply.
  core::status dims(const core::tensor& a, const core::tensor& b, int64_t* m,
                    int64_t* n, int64_t* k) const;
};

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
