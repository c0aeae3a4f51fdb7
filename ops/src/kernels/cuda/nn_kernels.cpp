// MatMul and _FusedMatMul (cuBLAS), BiasAdd and its gradient, Softmax,
// LogSoftmax and the two cross-entropy losses on the GPU.

#include <mutex>

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

/// MatMul, and _FusedMatMul (the product, then BiasAdd, then Relu if asked)
/// for float and double. Row-major C = op(A) op(B) is column-major
/// C^T = op(B)^T op(A)^T, so cuBLAS gets the operands swapped.
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
    auto m = a.shape().dim(transpose_a_ ? 1 : 0);
    auto k = a.shape().dim(transpose_a_ ? 0 : 1);
    auto k2 = b.shape().dim(transpose_b_ ? 1 : 0);
    auto n = b.shape().dim(transpose_b_ ? 0 : 1);
    ACTORFLOW_OP_REQUIRES(
      ctx, k == k2,
      core::invalid_argument_error(
        "MatMul: inner dimensions differ: ", a.shape().to_string(), " and ",
        b.shape().to_string()));
    core::tensor* c = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             ctx.allocate_output(0, core::shape{m, n}, &c));
    auto& dev = device_of(ctx);
    if (m * n == 0)
      return;
    using bt = blas_types<T>;
    typename bt::scalar one = 1;
    typename bt::scalar zero = 0;
    {
      std::lock_guard<std::mutex> guard{dev.blas_lock()};
      if (k == 0) {
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, launched(cudaMemsetAsync(c->raw_mutable_data(), 0, c->bytes(),
                                        dev.compute_stream()),
                        "MatMul"));
      } else {
        ACTORFLOW_OP_REQUIRES_OK(
          ctx,
          devices::cuda::check(
            dev.blas().gemm_ex(
              dev.cublas(), transpose_b_ ? CUBLAS_OP_T : CUBLAS_OP_N,
              transpose_a_ ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
              static_cast<int>(m), static_cast<int>(k), &one, b.raw_data(),
              bt::data, static_cast<int>(b.shape().dim(1)), a.raw_data(),
              bt::data, static_cast<int>(a.shape().dim(1)), &zero,
              c->raw_mutable_data(), bt::data, static_cast<int>(n), bt::compute,
              CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx"));
      }
    }
    if (fused_) {
      const auto& bias = ctx.input(2);
      ACTORFLOW_OP_REQUIRES(
        ctx, bias.shape().rank() == 1 && bias.shape().dim(0) == n,
        core::invalid_argument_error("_FusedMatMul: bias of shape ",
                                     bias.shape().to_string(), " for ", n,
                                     " columns"));
      elem type;
      ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, launched(bias_add(type, c->raw_data(), bias.raw_data(),
                               c->raw_mutable_data(), m, n, relu_,
                               dev.compute_stream()),
                      "_FusedMatMul"));
    }
  }

private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  bool fused_ = false;
  bool relu_ = false;
};

/// Rows and columns of `x` seen as a matrix over its last dimension.
void as_rows(const core::tensor& x, int64_t* rows, int64_t* cols) {
  auto r = x.shape().rank();
  *cols = r == 0 ? 1 : x.shape().dim(r - 1);
  *rows = *cols == 0 ? 0 : x.num_elements() / *cols;
}

template <class T>
class bias_add_kernel : public cheap_kernel {
public:
  explicit bias_add_kernel(kernel_construction& ctx) {
    if (ctx.attr_or("data_format", std::string{"NHWC"}) != "NHWC")
      init_ = core::unimplemented_error("BiasAdd on a GPU: NHWC only");
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& bias = ctx.input(1);
    int64_t rows = 0;
    int64_t cols = 0;
    as_rows(x, &rows, &cols);
    ACTORFLOW_OP_REQUIRES(ctx,
                          x.shape().rank() >= 1 && bias.shape().rank() == 1
                            && bias.shape().dim(0) == cols,
                          core::invalid_argument_error(
                            "BiasAdd: bias of shape ", bias.shape().to_string(),
                            " for a value of shape ", x.shape().to_string()));
    core::tensor* y = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.forward_input_or_allocate_output(0, 0, x.shape(), &y));
    elem type;
    ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
    auto& dev = device_of(ctx);
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(bias_add(type, x.raw_data(), bias.raw_data(),
                             y->raw_mutable_data(), rows, cols, false,
                             dev.compute_stream()),
                    "BiasAdd"));
  }
};

template <class T>
class bias_add_grad_kernel : public cheap_kernel {
public:
  explicit bias_add_grad_kernel(kernel_construction& ctx) {
    if (ctx.attr_or("data_format", std::string{"NHWC"}) != "NHWC")
      init_ = core::unimplemented_error("BiasAddGrad on a GPU: NHWC only");
  }

  void compute(kernel_context& ctx) override {
    const auto& dy = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(
      ctx, dy.shape().rank() >= 1,
      core::invalid_argument_error("BiasAddGrad needs rank 1 or more, got ",
                                   dy.shape().to_string()));
    int64_t rows = 0;
    int64_t cols = 0;
    as_rows(dy, &rows, &cols);
    core::tensor* db = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             ctx.allocate_output(0, core::shape{cols}, &db));
    elem type;
    ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
    auto& dev = device_of(ctx);
    if (rows == 0) {
      T zero = 0;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, launched(fill(type, &zero, db->raw_mutable_data(), cols,
                           dev.compute_stream()),
                      "BiasAddGrad"));
      return;
    }
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(reduce(reduce_fn::sum, type, dy.raw_data(),
                           db->raw_mutable_data(), 1, rows, cols,
                           dev.compute_stream()),
                    "BiasAddGrad"));
  }
};

template <bool Log>
struct softmax_op {
  template <class T>
  class kernel : public cheap_kernel {
  public:
    explicit kernel(kernel_construction&) {
      // nop
    }

    void compute(kernel_context& ctx) override {
      const auto& x = ctx.input(0);
      ACTORFLOW_OP_REQUIRES(
        ctx, x.shape().rank() >= 1,
        core::invalid_argument_error("softmax needs rank 1 or more, got ",
                                     x.shape().to_string()));
      int64_t rows = 0;
      int64_t cols = 0;
      as_rows(x, &rows, &cols);
      core::tensor* y = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, x.shape(), &y));
      elem type;
      ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
      auto& dev = device_of(ctx);
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, launched(softmax(type, x.raw_data(), y->raw_mutable_data(), rows,
                              cols, Log, dev.compute_stream()),
                      "softmax"));
    }
  };
};

template <bool Sparse>
struct xent_op {
  template <class T>
  class kernel : public cheap_kernel {
  public:
    explicit kernel(kernel_construction&) {
      // nop
    }

    void compute(kernel_context& ctx) override {
      const auto& logits = ctx.input(0);
      const auto& labels = ctx.input(1);
      ACTORFLOW_OP_REQUIRES(
        ctx, logits.shape().rank() == 2,
        core::invalid_argument_error("logits must be a matrix, got shape ",
                                     logits.shape().to_string()));
      auto rows = logits.shape().dim(0);
      auto cols = logits.shape().dim(1);
      bool fits = Sparse ? labels.shape() == core::shape{rows}
                         : labels.shape() == logits.shape();
      ACTORFLOW_OP_REQUIRES(ctx, fits,
                            core::invalid_argument_error(
                              "labels of shape ", labels.shape().to_string(),
                              " for logits of shape ",
                              logits.shape().to_string()));
      core::tensor* loss = nullptr;
      core::tensor* backprop = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, ctx.allocate_output(0, core::shape{rows}, &loss));
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, ctx.allocate_output(1, logits.shape(), &backprop));
      elem type;
      elem label_type;
      ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
      ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(labels.dtype(), &label_type));
      auto& dev = device_of(ctx);
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, launched(softmax_xent(type, logits.raw_data(), labels.raw_data(),
                                   label_type, Sparse, loss->raw_mutable_data(),
                                   backprop->raw_mutable_data(), rows, cols,
                                   dev.compute_stream()),
                      "cross-entropy"));
    }
  };
};

} // namespace

void register_matmul_kernels(kernel_registry& r) {
  r.add_typed<matmul_kernel, ACTORFLOW_GPU_FLOAT_TYPES>("MatMul", device_type);
  r.add_typed<matmul_kernel, float, double>("_FusedMatMul", device_type);
}

void register_nn_kernels(kernel_registry& r) {
  r.add_typed<bias_add_kernel, float, double>("BiasAdd", device_type);
  r.add_typed<bias_add_grad_kernel, float, double>("BiasAddGrad", device_type);
  r.add_typed<softmax_op<false>::kernel, float, double>("Softmax", device_type);
  r.add_typed<softmax_op<true>::kernel, float, double>("LogSoftmax",
                                                       device_type);
  r.add_typed<xent_op<true>::kernel, float, double>(
    "SparseSoftmaxCrossEntropyWithLogits", device_type);
  r.add_typed<xent_op<false>::kernel, float, double>(
    "SoftmaxCrossEntropyWithLogits", device_type);
}

} // namespace actorflow::ops::gpu
