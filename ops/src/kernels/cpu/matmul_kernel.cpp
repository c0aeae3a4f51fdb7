#include "blas.hpp"
#include "elementwise.hpp"
#include "kernels.hpp"
#include "onednn_matmul.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include <unsupported/Eigen/CXX11/Tensor>

namespace actorflow::ops::cpu {

namespace {

/// C = op(A) * op(B). float32 runs oneDNN's matmul (`onednn_matmul`);
/// double calls OpenBLAS's GEMM, which runs at 200 GFLOP/s on the dev
/// machine's two cores against 150-160 for Eigen's tensor contraction
/// (docs/performance.md, P4); float16 and bfloat16 go through float32 GEMM;
/// integer types use the contraction on the device's thread pool.
template <class T>
class matmul_kernel : public basic_kernel {
public:
  explicit matmul_kernel(kernel_construction& ctx) {
    init_ = product_.read(ctx);
  }

  void compute(kernel_context& ctx) override {
    const auto& a = ctx.input(0);
    const auto& b = ctx.input(1);
    int64_t m = 0, n = 0, k = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, product_.dims(a, b, &m, &n, &k));
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
    if constexpr (std::is_same_v<T, float>) {
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, dnn_.multiply(ctx, product_.transpose_a, product_.transpose_b, m,
                           n, k, a.data<float>(), lda, b.data<float>(), ldb, {},
                           out->mutable_data<float>(), n));
    } else if constexpr (std::is_floating_point_v<T>) {
      gemm<T>(&ctx, product_.transpose_a, product_.transpose_b, m, n, k,
              a.data<T>(), lda, b.data<T>(), ldb, T(0), out->mutable_data<T>(),
              n);
    } else if constexpr (!std::is_integral_v<T>) {
      // float16 and bfloat16 multiply in float32 and round once at the end.
      Eigen::Tensor<float, 2, Eigen::RowMajor> af
        = a.matrix<T>().template cast<float>();
      Eigen::Tensor<float, 2, Eigen::RowMajor> bf
        = b.matrix<T>().template cast<float>();
      Eigen::Tensor<float, 2, Eigen::RowMajor> zf(m, n);
      gemm<float>(&ctx, product_.transpose_a, product_.transpose_b, m, n, k,
                  af.data(), lda, bf.data(), ldb, 0.0f, zf.data(), n);
      z = zf.cast<T>();
    } else {
      Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims{
        {Eigen::IndexPair<Eigen::DenseIndex>(product_.transpose_a ? 0 : 1,
                                             product_.transpose_b ? 1 : 0)}};
      z.device(eigen_device(ctx)) = a.matrix<T>().contract(b.matrix<T>(), dims);
    }
  }

private:
  product_attrs product_;
  onednn_matmul dnn_;
};

/// relu(op(A) op(B) + bias) or op(A) op(B) + bias: one kernel, one output
/// and one hop rather than three. float32 adds the bias and takes Relu as
/// oneDNN's post-ops; double starts C as the bias in every row and has the
/// GEMM add the product to it (beta = 1), then takes Relu in one pass over
/// C while it is still in cache.
template <class T>
class fused_matmul_kernel : public basic_kernel {
public:
  explicit fused_matmul_kernel(kernel_construction& ctx) {
    init_ = product_.read(ctx);
    std::vector<std::string> fused;
    if (init_.is_ok())
      init_ = ctx.get_attr("fused_ops", &fused);
    if (!init_.is_ok())
      return;
    if (fused == std::vector<std::string>{"BiasAdd", "Relu"})
      relu_ = true;
    else if (fused != std::vector<std::string>{"BiasAdd"})
      init_ = core::unimplemented_error(
        "_FusedMatMul fuses BiasAdd or BiasAdd and Relu, not ",
        core::to_string(core::attr_value{fused}));
  }

  void compute(kernel_context& ctx) override {
    const auto& a = ctx.input(0);
    const auto& b = ctx.input(1);
    const auto& bias = ctx.input(2);
    int64_t m = 0, n = 0, k = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, product_.dims(a, b, &m, &n, &k));
    ACTORFLOW_OP_REQUIRES(
      ctx, bias.shape().rank() == 1 && bias.shape().dim(0) == n,
      core::invalid_argument_error(
        "BiasAdd needs a bias vector as long as the last dimension of ",
        core::shape{m, n}.to_string(), ", got ", bias.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {m, n}, &out));
    if (m == 0 || n == 0)
      return;
    auto* c = out->mutable_data<T>();
    const auto* bias_row = bias.data<T>();
    if constexpr (std::is_same_v<T, float>) {
      if (k > 0) {
        ACTORFLOW_OP_REQUIRES_OK(
          ctx,
          dnn_.multiply(ctx, product_.transpose_a, product_.transpose_b, m, n,
                        k, a.data<float>(), a.shape().dim(1), b.data<float>(),
                        b.shape().dim(1), {bias_row, relu_}, c, n));
        return;
      }
    }
    for (int64_t i = 0; i < m; ++i)
      std::copy(bias_row, bias_row + n, c + i * n);
    if (k > 0)
      gemm<T>(&ctx, product_.transpose_a, product_.transpose_b, m, n, k,
              a.data<T>(), a.shape().dim(1), b.data<T>(), b.shape().dim(1),
              T(1), c, n);
    if (relu_)
      for_elements(ctx, m * n, [&](int64_t begin, int64_t end) {
        auto z = mutable_elements<T>(*out, begin, end);
        z = z.cwiseMax(T(0));
      });
  }

private:
  product_attrs product_;
  bool relu_ = false;
  onednn_matmul dnn_;
};

/// ReluGrad(op(A) op(B), features): the gradient of a layer's input
/// through the Relu before it, as the product is written -- float32 with
/// each block of the product masked while it is in its thread's cache
/// (`onednn_matmul`), double in one pass over C after the GEMM. One kernel
/// and one hop, and no pass of its own over memory.
template <class T>
class matmul_relu_grad_kernel : public basic_kernel {
public:
  explicit matmul_relu_grad_kernel(kernel_construction& ctx) {
    init_ = product_.read(ctx);
  }

  void compute(kernel_context& ctx) override {
    const auto& a = ctx.input(0);
    const auto& b = ctx.input(1);
    const auto& features = ctx.input(2);
    int64_t m = 0, n = 0, k = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, product_.dims(a, b, &m, &n, &k));
    core::shape product{m, n};
    ACTORFLOW_OP_REQUIRES(ctx, features.shape() == product,
                          core::invalid_argument_error(
                            "ReluGrad needs features of the product's shape ",
                            product.to_string(), ", got ",
                            features.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, product, &out));
    if (m == 0 || n == 0)
      return;
    auto* c = out->mutable_data<T>();
    const auto* f = features.data<T>();
    if (k == 0) {
      std::fill_n(c, m * n, T(0));
      return;
    }
    auto lda = a.shape().dim(1), ldb = b.shape().dim(1);
    if constexpr (std::is_same_v<T, float>) {
      onednn_matmul::epilogue after;
      after.relu_features = f;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx,
        dnn_.multiply(ctx, product_.transpose_a, product_.transpose_b, m, n, k,
                      a.data<float>(), lda, b.data<float>(), ldb, after, c, n));
    } else {
      gemm<T>(&ctx, product_.transpose_a, product_.transpose_b, m, n, k,
              a.data<T>(), lda, b.data<T>(), ldb, T(0), c, n);
      for (int64_t i = 0; i < m * n; ++i)
        c[i] = f[i] > T(0) ? c[i] : T(0);
    }
  }

private:
  product_attrs product_;
  onednn_matmul dnn_;
};

} // namespace

void register_matmul_kernels(kernel_registry& r) {
  r.add_typed<matmul_kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("MatMul", device_type);
  r.add_typed<fused_matmul_kernel, float, double>("_FusedMatMul", device_type);
  r.add_typed<matmul_relu_grad_kernel, float, double>("_MatMulReluGrad",
                                                      device_type);
}

} // namespace actorflow::ops::cpu
