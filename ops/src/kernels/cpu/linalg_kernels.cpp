// Batched matrix kernels: BatchMatMul(V2) through OpenBLAS GEMM per matrix,
// MatrixInverse and MatrixDeterminant through Eigen's LU decomposition.

#include "blas.hpp"
#include "kernels.hpp"

#include <limits>

#include <Eigen/Dense>

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::cpu {

namespace {

/// x @ y per matrix, batch dimensions broadcast (BatchMatMulV2; the first
/// BatchMatMul requires equal ones, which broadcasting covers).
template <class T>
class batch_matmul_kernel : public basic_kernel {
public:
  explicit batch_matmul_kernel(kernel_construction& ctx) {
    adj_x_ = ctx.attr_or("adj_x", false);
    adj_y_ = ctx.attr_or("adj_y", false);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& y = ctx.input(1);
    const auto &xs = x.shape(), &ys = y.shape();
    batch_product p;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             plan_batch_product(xs, ys, adj_x_, adj_y_, &p));
    auto m = p.m, n = p.n, k = p.k;
    const auto& batch = p.batch;
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, p.out, &out));
    auto count = batch.num_elements();
    T* z = out->mutable_data<T>();
    if (k == 0) {
      std::fill_n(z, out->num_elements(), T(0));
      return;
    }
    const auto &xb = p.x_batch, &yb = p.y_batch;
    auto lda = static_cast<int>(xs.dim(xs.rank() - 1));
    auto ldb = static_cast<int>(ys.dim(ys.rank() - 1));
    for (int64_t i = 0; i < count && m > 0 && n > 0; ++i) {
      const T* a = x.data<T>() + batch_offset(i, xb, batch) * m * k;
      const T* b = y.data<T>() + batch_offset(i, yb, batch) * k * n;
      T* c = z + i * m * n;
      gemm<T>(&ctx, adj_x_, adj_y_, m, n, k, a, lda, b, ldb, T(0), c, n);
    }
  }

private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

template <class T>
using matrix
  = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Checks for a batch of square matrices; returns n.
core::status square_matrices(const core::shape& s, int64_t* n) {
  if (s.rank() < 2 || s.dim(s.rank() - 1) != s.dim(s.rank() - 2))
    return core::invalid_argument_error("input must be a batch of square "
                                        "matrices [..., n, n], got ",
                                        s.to_string());
  *n = s.dim(s.rank() - 1);
  return core::status::ok();
}

template <class T>
class matrix_inverse_kernel : public basic_kernel {
public:
  explicit matrix_inverse_kernel(kernel_construction& ctx) {
    adjoint_ = ctx.attr_or("adjoint", false);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    int64_t n = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, square_matrices(x.shape(), &n));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, x.shape(), &out));
    if (n == 0)
      return;
    for (int64_t i = 0, count = x.num_elements() / (n * n); i < count; ++i) {
      Eigen::Map<const matrix<T>> a{x.data<T>() + i * n * n, n, n};
      Eigen::Map<matrix<T>> z{out->mutable_data<T>() + i * n * n, n, n};
      Eigen::PartialPivLU<matrix<T>> lu{adjoint_ ? matrix<T>(a.transpose())
                                                 : matrix<T>(a)};
      ACTORFLOW_OP_REQUIRES(
        ctx, lu.rcond() > std::numeric_limits<T>::epsilon(),
        core::invalid_argument_error("matrix ", i,
                                     " is not invertible (reciprocal "
                                     "condition number ",
                                     lu.rcond(), ")"));
      z = lu.inverse();
    }
  }

private:
  bool adjoint_ = false;
};

template <class T>
class matrix_determinant_kernel : public basic_kernel {
public:
  explicit matrix_determinant_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    int64_t n = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, square_matrices(x.shape(), &n));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             ctx.allocate_output(0, batch_of(x.shape()), &out));
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      Eigen::Map<const matrix<T>> a{x.data<T>() + i * n * n, n, n};
      out->mutable_data<T>()[i]
        = n == 0 ? T(1) : Eigen::PartialPivLU<matrix<T>>{a}.determinant();
    }
  }
};

} // namespace

void register_linalg_kernels(kernel_registry& r) {
  r.add_typed<batch_matmul_kernel, float, double>("BatchMatMulV2", device_type);
  r.add_typed<batch_matmul_kernel, float, double>("BatchMatMul", device_type);
  r.add_typed<matrix_inverse_kernel, float, double>("MatrixInverse",
                                                    device_type);
  r.add_typed<matrix_determinant_kernel, float, double>("MatrixDeterminant",
                                                        device_type);
}

} // namespace actorflow::ops::cpu
