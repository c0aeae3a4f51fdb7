#include "kernels.hpp"

#include <type_traits>

#include <cblas.h>
#include <unsupported/Eigen/CXX11/Tensor>

namespace actorflow::ops::cpu {

namespace {

/// C = op(A) * op(B). float and double call OpenBLAS's GEMM, which runs at
/// 200 GFLOP/s on the dev machine's two cores against 150-160 for Eigen's
/// tensor contraction (docs/performance.md, P4); integer types use the
/// contraction on the device's thread pool.
template <class T>
class matmul_kernel : public basic_kernel {
public:
  explicit matmul_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("transpose_a", &transpose_a_);
    if (init_.is_ok())
      init_ = ctx.get_attr("transpose_b", &transpose_b_);
  }

  void compute(kernel_context& ctx) override {
    const auto& a = ctx.input(0);
    const auto& b = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, a.shape().rank() == 2 && b.shape().rank() == 2,
      core::invalid_argument_error("MatMul needs rank-2 inputs, got ",
                                   a.shape().to_string(), " and ",
                                   b.shape().to_string()));
    auto m = a.shape().dim(transpose_a_ ? 1 : 0);
    auto k = a.shape().dim(transpose_a_ ? 0 : 1);
    auto k2 = b.shape().dim(transpose_b_ ? 1 : 0);
    auto n = b.shape().dim(transpose_b_ ? 0 : 1);
    ACTORFLOW_OP_REQUIRES(
      ctx, k == k2,
      core::invalid_argument_error(
        "MatMul inner dimensions differ: ", a.shape().to_string(), " times ",
        b.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {m, n}, &out));
    if (m == 0 || n == 0)
      return;
    auto z = out->mutable_matrix<T>();
    if (k == 0) {
      z.setZero();
      return;
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      auto ta = transpose_a_ ? CblasTrans : CblasNoTrans;
      auto tb = transpose_b_ ? CblasTrans : CblasNoTrans;
      auto lda = static_cast<int>(a.shape().dim(1));
      auto ldb = static_cast<int>(b.shape().dim(1));
      auto mi = static_cast<int>(m), ni = static_cast<int>(n),
           ki = static_cast<int>(k);
      if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasRowMajor, ta, tb, mi, ni, ki, 1.0f, a.data<float>(),
                    lda, b.data<float>(), ldb, 0.0f, out->mutable_data<float>(),
                    ni);
      else
        cblas_dgemm(CblasRowMajor, ta, tb, mi, ni, ki, 1.0, a.data<double>(),
                    lda, b.data<double>(), ldb, 0.0,
                    out->mutable_data<double>(), ni);
    } else {
      Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims{
        {Eigen::IndexPair<Eigen::DenseIndex>(transpose_a_ ? 0 : 1,
                                             transpose_b_ ? 1 : 0)}};
      z.device(eigen_device(ctx)) = a.matrix<T>().contract(b.matrix<T>(), dims);
    }
  }

private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

} // namespace

void register_matmul_kernels(kernel_registry& r) {
  r.add_typed<matmul_kernel, float, double, int32_t, int64_t>("MatMul",
                                                              device_type);
}

} // namespace actorflow::ops::cpu
