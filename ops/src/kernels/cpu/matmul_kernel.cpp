#include "blas.hpp"
#include "kernels.hpp"

#include <type_traits>

#include <unsupported/Eigen/CXX11/Tensor>

namespace actorflow::ops::cpu {

namespace {

/// C = op(A) * op(B). float and double call OpenBLAS's GEMM, which runs at
/// 200 GFLOP/s on the dev machine's two cores against 150-160 for Eigen's
/// tensor contraction (docs/performance.md, P4); float16 and bfloat16 go
/// through float32 GEMM; integer types use the contraction on the device's
/// thread pool.
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
    auto lda = a.shape().dim(1), ldb = b.shape().dim(1);
    if constexpr (std::is_floating_point_v<T>) {
      gemm<T>(&ctx, transpose_a_, transpose_b_, m, n, k, a.data<T>(), lda,
              b.data<T>(), ldb, T(0), out->mutable_data<T>(), n);
    } else if constexpr (!std::is_integral_v<T>) {
      // float16 and bfloat16 multiply in float32 and round once at the end.
      Eigen::Tensor<float, 2, Eigen::RowMajor> af
        = a.matrix<T>().template cast<float>();
      Eigen::Tensor<float, 2, Eigen::RowMajor> bf
        = b.matrix<T>().template cast<float>();
      Eigen::Tensor<float, 2, Eigen::RowMajor> zf(m, n);
      gemm<float>(&ctx, transpose_a_, transpose_b_, m, n, k, af.data(), lda,
                  bf.data(), ldb, 0.0f, zf.data(), n);
      z = zf.cast<T>();
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
  r.add_typed<matmul_kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("MatMul", device_type);
}

} // namespace actorflow::ops::cpu
