// FusedBatchNorm and FusedBatchNormGrad on the GPU (float32, NHWC) through
// cuDNN's spatial batch normalisation. The outputs follow the CPU's
// kernels, so that a gradient may run on either device whatever ran the
// forward pass: reserve_space_1 and _2 are the batch's mean and biased
// variance (cuDNN's own inverse standard deviation is recomputed from the
// variance by the gradient).

#include <mutex>

#include "../common/checks.hpp"
#include "cudnn_descriptors.hpp"

namespace actorflow::ops::gpu {

namespace {

using devices::cuda::check;

/// The attrs both kernels read.
struct norm_attrs {
  double epsilon = 0.0001;
  bool training = true;

  core::status read(kernel_construction& ctx) {
    epsilon = ctx.attr_or("epsilon", epsilon);
    training = ctx.attr_or("is_training", training);
    if (ctx.attr_or("data_format", std::string{"NHWC"}) != "NHWC")
      return core::unimplemented_error("only data_format NHWC is supported");
    return core::status::ok();
  }
};

/// The descriptors of images `xs` and of their channels' parameters.
struct norm_descriptors {
  nhwc_descriptor x;
  nhwc_descriptor channels;

  core::status make(const devices::cuda::cudnn_functions& f,
                    const core::shape& xs) {
    ACTORFLOW_RETURN_IF_ERROR(
      x.make(f, xs.dim(0), xs.dim(1), xs.dim(2), xs.dim(3)));
    return channels.make(f, 1, 1, 1, xs.dim(3));
  }
};

const float* floats(const core::tensor& t) {
  return static_cast<const float*>(t.raw_data());
}

float* floats(core::tensor* t) {
  return static_cast<float*>(t->raw_mutable_data());
}

/// FusedBatchNorm(x, scale, offset, mean, variance) -> y, batch_mean,
/// batch_variance, reserve_space_1, reserve_space_2.
template <class T>
class batch_norm_kernel : public cheap_kernel {
public:
  explicit batch_norm_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx);
    factor_ = ctx.attr_or("exponential_avg_factor", 1.0);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    std::vector<core::tensor*> outs;
    int64_t c = 0;
    int64_t rows = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, common::batch_norm_outputs(ctx, attrs_.training, &outs, &c, &rows));
    if (c == 0)
      return;
    auto& dev = device_of(ctx);
    auto stream = dev.compute_stream();
    if (rows == 0) {
      // No batch: statistics of nothing, as the CPU's 0 / 0.
      float nan = std::numeric_limits<float>::quiet_NaN();
      for (size_t i = 1; i < 5; ++i)
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, launched(
                 fill(elem::f32, &nan, outs[i]->raw_mutable_data(), c, stream),
                 "FusedBatchNorm"));
      return;
    }
    cudnnHandle_t dnn = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, dev.cudnn(&dnn));
    const auto& f = dev.dnn();
    norm_descriptors d;
    ACTORFLOW_OP_REQUIRES_OK(ctx, d.make(f, x.shape()));
    float one = 1;
    float zero = 0;
    const auto& scale = ctx.input(1);
    const auto& offset = ctx.input(2);
    if (!attrs_.training) {
      {
        std::lock_guard<std::mutex> guard{dev.dnn_lock()};
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, check(f.batch_norm_inference(
                       dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x.get(),
                       x.raw_data(), d.x.get(), outs[0]->raw_mutable_data(),
                       d.channels.get(), scale.raw_data(), offset.raw_data(),
                       ctx.input(3).raw_data(), ctx.input(4).raw_data(),
                       attrs_.epsilon),
                     "cudnnBatchNormalizationForwardInference"));
      }
      // The statistics pass through.
      for (size_t i = 1; i < 5; ++i)
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, launched(cudaMemcpyAsync(
                          outs[i]->raw_mutable_data(),
                          ctx.input(i % 2 == 1 ? 3 : 4).raw_data(),
                          outs[i]->bytes(), cudaMemcpyDeviceToDevice, stream),
                        "FusedBatchNorm"));
      return;
    }
    // cuDNN's running statistics with factor 1 are the batch's mean and
    // unbiased variance (zeroed first: cuDNN reads them, times 0).
    core::tensor stats;
    ACTORFLOW_OP_REQUIRES_OK(ctx, scratch(dev, {2, c}, &stats));
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             launched(cudaMemsetAsync(stats.raw_mutable_data(),
                                                      0, stats.bytes(), stream),
                                      "FusedBatchNorm"));
    float* mean = floats(&stats);
    {
      std::lock_guard<std::mutex> guard{dev.dnn_lock()};
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, check(f.batch_norm_training(
                     dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x.get(),
                     x.raw_data(), d.x.get(), outs[0]->raw_mutable_data(),
                     d.channels.get(), scale.raw_data(), offset.raw_data(), 1.0,
                     mean, mean + c, attrs_.epsilon, nullptr, nullptr),
                   "cudnnBatchNormalizationForwardTraining"));
    }
    bool blend = factor_ != 1.0 && ctx.input(3).num_elements() == c;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(batch_norm_statistics(
                      mean, mean + c, blend ? floats(ctx.input(3)) : nullptr,
                      blend ? floats(ctx.input(4)) : nullptr, factor_, rows, c,
                      floats(outs[1]), floats(outs[2]), floats(outs[3]),
                      floats(outs[4]), stream),
                    "FusedBatchNorm"));
  }

private:
  norm_attrs attrs_;
  double factor_ = 1.0;
};

/// FusedBatchNormGrad(y_backprop, x, scale, reserve_space_1,
/// reserve_space_2) -> x_backprop, scale_backprop, offset_backprop and two
/// empty outputs.
template <class T>
class batch_norm_grad_kernel : public cheap_kernel {
public:
  explicit batch_norm_grad_kernel(kernel_construction& ctx) {
    init_ = attrs_.read(ctx);
  }

  void compute(kernel_context& ctx) override {
    const auto& dy = ctx.input(0);
    const auto& x = ctx.input(1);
    std::vector<core::tensor*> outs;
    int64_t c = 0;
    int64_t rows = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, common::batch_norm_grad_outputs(ctx, &outs, &c, &rows));
    if (c == 0)
      return;
    auto& dev = device_of(ctx);
    auto stream = dev.compute_stream();
    core::tensor inv;
    ACTORFLOW_OP_REQUIRES_OK(ctx, scratch(dev, {c}, &inv));
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(inverse_std(floats(ctx.input(4)), attrs_.epsilon,
                                floats(&inv), c, stream),
                    "FusedBatchNormGrad"));
    if (!attrs_.training || rows == 0) {
      // Frozen statistics (or no rows, whose sums are zeros).
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, launched(batch_norm_frozen_grad(
                        floats(dy), floats(x), floats(ctx.input(2)),
                        floats(ctx.input(3)), floats(inv), floats(outs[0]),
                        floats(outs[1]), floats(outs[2]), rows, c, stream),
                      "FusedBatchNormGrad"));
      return;
    }
    cudnnHandle_t dnn = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, dev.cudnn(&dnn));
    const auto& f = dev.dnn();
    norm_descriptors d;
    ACTORFLOW_OP_REQUIRES_OK(ctx, d.make(f, x.shape()));
    float one = 1;
    float zero = 0;
    std::lock_guard<std::mutex> guard{dev.dnn_lock()};
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, check(f.batch_norm_backward(
                   dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                   d.x.get(), x.raw_data(), d.x.get(), dy.raw_data(), d.x.get(),
                   outs[0]->raw_mutable_data(), d.channels.get(),
                   ctx.input(2).raw_data(), outs[1]->raw_mutable_data(),
                   outs[2]->raw_mutable_data(), attrs_.epsilon,
                   ctx.input(3).raw_data(), inv.raw_data()),
                 "cudnnBatchNormalizationBackward"));
  }

private:
  norm_attrs attrs_;
};

} // namespace

void register_batch_norm_kernels(kernel_registry& r) {
  r.add_typed<batch_norm_kernel, float>("FusedBatchNorm", device_type);
  r.add_typed<batch_norm_grad_kernel, float>("FusedBatchNormGrad", device_type);
}

} // namespace actorflow::ops::gpu
