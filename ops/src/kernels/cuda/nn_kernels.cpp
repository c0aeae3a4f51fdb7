// BiasAdd and its gradient, Softmax, LogSoftmax and the two cross-entropy
// losses on the GPU.

#include "gpu_kernels.hpp"

namespace actorflow::ops::gpu {

namespace {

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
      ctx, reduce_on(dev, reduce_fn::sum, dy, *db, 1, rows, cols));
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
