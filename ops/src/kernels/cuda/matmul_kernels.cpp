// MatMul, _FusedMatMul and BatchMatMul(V2) on the GPU through cuBLAS:
// float, double, and half and bfloat16 accumulating in float.

#include <mutex>

#include "../common/checks.hpp"
#include "cuda/cuda_libraries.hpp"
#include "gpu_kernels.hpp"

namespace actorflow::ops::gpu {

namespace {

/// cuBLAS's data and compute types for `T`: half and bfloat16 operands
/// accumulate in float.
template <class T>
struct blas_types;
template <>
struct blas_types<float> {
  static constexpr cudaDataType_t data = CUDA_R_32F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  using scalar = float;
};
template <>
struct blas_types<double> {
  static constexpr cudaDataType_t data = CUDA_R_64F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
  using scalar = double;
};
template <>
struct blas_types<Eigen::half> {
  static constexpr cudaDataType_t data = CUDA_R_16F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  using scalar = float;
};
template <>
struct blas_types<Eigen::bfloat16> {
  static constexpr cudaDataType_t data = CUDA_R_16BF;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  using scalar = float;
};

/// `count` row-major products C = op(A) op(B), A [m, k] (or [k, m] with
/// `ta`) with `lda` columns, B [k, n] (or [n, k]) with `ldb`, C [m, n]
/// dense; matrix i at A + i * stride_a, B + i * stride_b, C + i * m * n
/// (elements). Row-major C = op(A) op(B) is column-major C^T = op(B)^T
/// op(A)^T, so cuBLAS gets the operands swapped.
struct product {
  bool ta = false;
  bool tb = false;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t lda = 0;
  int64_t ldb = 0;
  int64_t stride_a = 0;
  int64_t stride_b = 0;
  int64_t count = 1;
};

/// Queues `p` on the device's compute stream.
template <class T>
core::status multiply(devices::cuda::gpu_device& dev, const product& p,
                      const void* a, const void* b, void* c) {
  if (p.m * p.n * p.count == 0)
    return core::status::ok();
  std::lock_guard<std::mutex> guard{dev.blas_lock()};
  if (p.k == 0)
    return launched(
      cudaMemsetAsync(c, 0,
                      static_cast<size_t>(p.m * p.n * p.count) * sizeof(T),
                      dev.compute_stream()),
      "MatMul");
  using bt = blas_types<T>;
  typename bt::scalar one = 1;
  typename bt::scalar zero = 0;
  auto op_a = p.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  auto op_b = p.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  auto n = static_cast<int>(p.n);
  auto m = static_cast<int>(p.m);
  auto k = static_cast<int>(p.k);
  if (p.count == 1)
    return devices::cuda::check(
      dev.blas().gemm_ex(dev.cublas(), op_b, op_a, n, m, k, &one, b, bt::data,
                         static_cast<int>(p.ldb), a, bt::data,
                         static_cast<int>(p.lda), &zero, c, bt::data, n,
                         bt::compute, CUBLAS_GEMM_DEFAULT),
      "cublasGemmEx");
  return devices::cuda::check(
    dev.blas().gemm_strided_batched_ex(
      dev.cublas(), op_b, op_a, n, m, k, &one, b, bt::data,
      static_cast<int>(p.ldb), p.stride_b, a, bt::data, static_cast<int>(p.lda),
      p.stride_a, &zero, c, bt::data, n, p.m * p.n, static_cast<int>(p.count),
      bt::compute, CUBLAS_GEMM_DEFAULT),
    "cublasGemmStridedBatchedEx");
}

/// MatMul, and _FusedMatMul (the product, then BiasAdd, then Relu if asked)
/// for float and double.
template <class T>
class matmul_kernel : public cheap_kernel {
public:
  explicit matmul_kernel(kernel_construction& ctx) {
    transpose_a_ = ctx.attr_or("transpose_a", false);
    transpose_b_ = ctx.attr_or("transpose_b", false);
    if (ctx.node().op == "_FusedMatMul") {
      std::vector<std::string> fused;
      init_ = ctx.get_attr("fused_ops", &fused);
      fused_ = true;
      relu_ = fused.size() == 2 && fused[1] == "Relu";
      if (init_.is_ok() && (fused.empty() || fused[0] != "BiasAdd"))
        init_ = core::unimplemented_error("_FusedMatMul fuses BiasAdd first");
    }
  }

  void compute(kernel_context& ctx) override {
    const auto& a = ctx.input(0);
    const auto& b = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, a.shape().rank() == 2 && b.shape().rank() == 2,
      core::invalid_argument_error("MatMul needs matrices, got shapes ",
                                   a.shape().to_string(), " and ",
                                   b.shape().to_string()));
    product p;
    p.ta = transpose_a_;
    p.tb = transpose_b_;
    p.m = a.shape().dim(p.ta ? 1 : 0);
    p.k = a.shape().dim(p.ta ? 0 : 1);
    p.n = b.shape().dim(p.tb ? 0 : 1);
    p.lda = a.shape().dim(1);
    p.ldb = b.shape().dim(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, p.k == b.shape().dim(p.tb ? 1 : 0),
      core::invalid_argument_error(
        "MatMul: inner dimensions differ: ", a.shape().to_string(), " and ",
        b.shape().to_string()));
    core::tensor* c = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             ctx.allocate_output(0, core::shape{p.m, p.n}, &c));
    auto& dev = device_of(ctx);
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      multiply<T>(dev, p, a.raw_data(), b.raw_data(), c->raw_mutable_data()));
    if (!fused_ || c->num_elements() == 0)
      return;
    const auto& bias = ctx.input(2);
    ACTORFLOW_OP_REQUIRES(
      ctx, bias.shape().rank() == 1 && bias.shape().dim(0) == p.n,
      core::invalid_argument_error("_FusedMatMul: bias of shape ",
                                   bias.shape().to_string(), " for ", p.n,
                                   " columns"));
    elem type;
    ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(bias_add(type, c->raw_data(), bias.raw_data(),
                             c->raw_mutable_data(), p.m, p.n, relu_,
                             dev.compute_stream()),
                    "_FusedMatMul"));
  }

private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  bool fused_ = false;
  bool relu_ = false;
};

/// BatchMatMul and BatchMatMulV2: x @ y per matrix, batch dimensions
/// broadcast. One strided batched GEMM when each operand's batch is the
/// output's or a single matrix; otherwise one GEMM per output matrix.
template <class T>
class batch_matmul_kernel : public cheap_kernel {
public:
  explicit batch_matmul_kernel(kernel_construction& ctx) {
    adj_x_ = ctx.attr_or("adj_x", false);
    adj_y_ = ctx.attr_or("adj_y", false);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& y = ctx.input(1);
    common::batch_product plan;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      common::plan_batch_product(x.shape(), y.shape(), adj_x_, adj_y_, &plan));
    product p;
    p.ta = adj_x_;
    p.tb = adj_y_;
    p.m = plan.m;
    p.n = plan.n;
    p.k = plan.k;
    p.lda = x.shape().dim(x.shape().rank() - 1);
    p.ldb = y.shape().dim(y.shape().rank() - 1);
    const auto& xb = plan.x_batch;
    const auto& yb = plan.y_batch;
    const auto& batch = plan.batch;
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, plan.out, &out));
    auto& dev = device_of(ctx);
    auto count = batch.num_elements();
    // An operand that broadcasts to the output's batch with as many
    // matrices lies as the output does: it steps with it. A single matrix
    // stays.
    auto stride_of = [count](const core::shape& b, int64_t size, int64_t* s) {
      *s = b.num_elements() == 1 ? 0 : size;
      return b.num_elements() == 1 || b.num_elements() == count;
    };
    if (stride_of(xb, p.m * p.k, &p.stride_a)
        && stride_of(yb, p.k * p.n, &p.stride_b)) {
      p.count = count;
      ACTORFLOW_OP_REQUIRES_OK(ctx,
                               multiply<T>(dev, p, x.raw_data(), y.raw_data(),
                                           out->raw_mutable_data()));
      return;
    }
    auto elem_bytes = static_cast<int64_t>(sizeof(T));
    for (int64_t i = 0; i < count; ++i) {
      const auto* a
        = static_cast<const char*>(x.raw_data())
          + common::batch_offset(i, xb, batch) * p.m * p.k * elem_bytes;
      const auto* b
        = static_cast<const char*>(y.raw_data())
          + common::batch_offset(i, yb, batch) * p.k * p.n * elem_bytes;
      auto* c = static_cast<char*>(out->raw_mutable_data())
                + i * p.m * p.n * elem_bytes;
      ACTORFLOW_OP_REQUIRES_OK(ctx, multiply<T>(dev, p, a, b, c));
    }
  }

private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

} // namespace

void register_matmul_kernels(kernel_registry& r) {
  r.add_typed<matmul_kernel, ACTORFLOW_GPU_FLOAT_TYPES>("MatMul", device_type);
  r.add_typed<matmul_kernel, float, double>("_FusedMatMul", device_type);
  r.add_typed<batch_matmul_kernel, ACTORFLOW_GPU_FLOAT_TYPES>("BatchMatMul",
                                                              device_type);
  r.add_typed<batch_matmul_kernel, ACTORFLOW_GPU_FLOAT_TYPES>("BatchMatMulV2",
                                                              device_type);
}

} // namespace actorflow::ops::gpu
