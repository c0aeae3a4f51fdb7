#include "blas.hpp"

#include <algorithm>

#include <cblas.h>

#include "parallel_split.hpp"

namespace actorflow::ops::cpu {

namespace {

/// Multiply-adds below which a product runs on the calling thread.
constexpr int64_t split_threshold = int64_t{1} << 20;

template <class T>
void blas(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha,
          const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
          int64_t ldc) {
  auto opa = ta ? CblasTrans : CblasNoTrans;
  auto opb = tb ? CblasTrans : CblasNoTrans;
  auto mi = static_cast<int>(m), ni = static_cast<int>(n),
       ki = static_cast<int>(k);
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, opa, opb, mi, ni, ki, alpha, a,
                static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
  else
    cblas_dgemm(CblasRowMajor, opa, opb, mi, ni, ki, alpha, a,
                static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
}

} // namespace

core::status product_attrs::read(const kernel_construction& ctx) {
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("transpose_a", &transpose_a));
  return ctx.get_attr("transpose_b", &transpose_b);
}

core::status product_attrs::dims(const core::tensor& a, const core::tensor& b,
                                 int64_t* m, int64_t* n, int64_t* k) const {
  if (a.shape().rank() != 2 || b.shape().rank() != 2)
    return core::invalid_argument_error("MatMul needs rank-2 inputs, got ",
                                        a.shape().to_string(), " and ",
                                        b.shape().to_string());
  *m = a.shape().dim(transpose_a ? 1 : 0);
  *k = a.shape().dim(transpose_a ? 0 : 1);
  *n = b.shape().dim(transpose_b ? 0 : 1);
  if (*k != b.shape().dim(transpose_b ? 1 : 0))
    return core::invalid_argument_error(
      "MatMul inner dimensions differ: ", a.shape().to_string(), " times ",
      b.shape().to_string());
  return core::status::ok();
}

template <class T>
void gemm(kernel_context* ctx, bool ta, bool tb, int64_t m, int64_t n,
          int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
          T* c, int64_t ldc, T alpha) {
  parallel_split split{ctx, m * n * k >= split_threshold
                              && openblas_get_num_threads() == 1};
  // Cut the longer side of C into blocks of whole rows or columns.
  bool by_rows = m >= n;
  auto side = by_rows ? m : n;
  auto parts = static_cast<int>(std::min<int64_t>(split.threads(), side / 16));
  if (parts <= 1) {
    blas(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  split.run(parts, [&](int part) {
    auto first = side * part / parts;
    auto size = side * (part + 1) / parts - first;
    if (by_rows) // rows of op(A): A's rows, or its columns when transposed
      blas(ta, tb, size, n, k, alpha, a + first * (ta ? 1 : lda), lda, b, ldb,
           beta, c + first * ldc, ldc);
    else // columns of op(B)
      blas(ta, tb, m, size, k, alpha, a, lda, b + first * (tb ? ldb : 1), ldb,
           beta, c + first, ldc);
  });
}

template void gemm<float>(kernel_context*, bool, bool, int64_t, int64_t,
                          int64_t, const float*, int64_t, const float*, int64_t,
                          float, float*, int64_t, float);
template void gemm<double>(kernel_context*, bool, bool, int64_t, int64_t,
                           int64_t, const double*, int64_t, const double*,
                           int64_t, double, double*, int64_t, double);

} // namespace actorflow::ops::cpu
