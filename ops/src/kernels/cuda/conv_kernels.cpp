// Conv2D, _FusedConv2D and the two gradients of Conv2D on the GPU, through
// cuDNN (float32, NHWC; float64 falls back to the CPU). Filters are HWIO in
// the graph and OHWI ("NHWC" filters) for cuDNN: a permuting copy each
// way. TensorFlow's SAME padding may put one row or column more after the
// image than before it, which cuDNN's symmetric padding cannot express:
// as TensorFlow's GPU kernels do, the image then gets that row or column
// of zeros appended (a padded copy), and the input's gradient is cropped.

#include <map>
#include <mutex>
#include <vector>

#include "../common/checks.hpp"
#include "cudnn_descriptors.hpp"
#include "plans.hpp"

namespace actorflow::ops::gpu {

namespace {

using devices::cuda::check;

/// The largest workspace an algorithm may ask for (TensorFlow's default
/// limit).
constexpr size_t workspace_limit = size_t{4} << 30;

/// HWIO filters `f` as OHWI in new memory.
core::status to_ohwi(devices::cuda::gpu_device& dev, const core::tensor& f,
                     core::tensor* out) {
  const auto& s = f.shape();
  ACTORFLOW_RETURN_IF_ERROR(
    scratch(dev, {s.dim(3), s.dim(0), s.dim(1), s.dim(2)}, out));
  return copy_strided(dev, f, *out, hwio_to_ohwi(s));
}

/// OHWI filters `f` into HWIO `out`.
core::status to_hwio(devices::cuda::gpu_device& dev, const core::tensor& f,
                     core::tensor& out) {
  return copy_strided(dev, f, out, ohwi_to_hwio(f.shape()));
}

/// `x` with the geometry's zeros appended, in new memory.
core::status pad_image(devices::cuda::gpu_device& dev, const conv_geometry& g,
                       const core::tensor& x, core::tensor* out) {
  ACTORFLOW_RETURN_IF_ERROR(scratch(dev, g.padded(), out));
  ACTORFLOW_RETURN_IF_ERROR(
    launched(cudaMemsetAsync(out->raw_mutable_data(), 0, out->bytes(),
                             dev.compute_stream()),
             "padding"));
  return copy_strided(dev, x, *out, into_padded(x.shape(), g.padded()));
}

/// The descriptors of one convolution (images as cuDNN sees them).
struct conv_descriptors {
  nhwc_descriptor x;
  nhwc_descriptor y;
  dnn_descriptor<cudnnFilterDescriptor_t> filter;
  dnn_descriptor<cudnnConvolutionDescriptor_t> conv;

  core::status make(const devices::cuda::cudnn_functions& f,
                    const conv_geometry& g) {
    auto image = g.padded();
    ACTORFLOW_RETURN_IF_ERROR(
      x.make(f, image.dim(0), image.dim(1), image.dim(2), image.dim(3)));
    ACTORFLOW_RETURN_IF_ERROR(y.make(f, g.batch, g.h.out, g.w.out, g.cout));
    ACTORFLOW_RETURN_IF_ERROR(filter.make(f.create_filter, f.destroy_filter));
    ACTORFLOW_RETURN_IF_ERROR(
      check(f.set_filter_4d(filter.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC,
                            static_cast<int>(g.cout), static_cast<int>(g.cin),
                            static_cast<int>(g.h.k), static_cast<int>(g.w.k)),
            "cudnnSetFilter4dDescriptor"));
    ACTORFLOW_RETURN_IF_ERROR(
      conv.make(f.create_convolution, f.destroy_convolution));
    ACTORFLOW_RETURN_IF_ERROR(
      check(f.set_convolution_2d(
              conv.get(), static_cast<int>(g.h.pad), static_cast<int>(g.w.pad),
              static_cast<int>(g.h.stride), static_cast<int>(g.w.stride),
              static_cast<int>(g.h.dilation), static_cast<int>(g.w.dilation),
              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            "cudnnSetConvolution2dDescriptor"));
    // Full float32 products, as the CPU's and the GPU's MatMul: no TF32.
    return check(f.set_convolution_math(conv.get(), CUDNN_FMA_MATH),
                 "cudnnSetConvolutionMathType");
  }
};

/// An algorithm of a convolution pass and the workspace it needs.
struct algorithm {
  int id = 0;
  size_t workspace = 0;
};

/// Picks the first of cuDNN's heuristic choices (ranked fastest first)
/// that works for these shapes within the workspace limit.
template <class Perf>
core::status first_usable(const Perf* perf, int count, const char* pass,
                          algorithm* out) {
  for (int i = 0; i < count; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS
        && perf[i].memory <= workspace_limit) {
      *out = {static_cast<int>(perf[i].algo), perf[i].memory};
      return core::status::ok();
    }
  return core::unimplemented_error("cuDNN has no ", pass,
                                   " algorithm for these shapes");
}

/// The three passes of a convolution.
enum class pass { forward, data, filter };

/// cuDNN's algorithm for `which` pass of `g`, chosen by its heuristics
/// (as PyTorch does unless asked to benchmark) and kept per shape.
class algorithm_cache {
public:
  core::status get(const devices::cuda::cudnn_functions& f, cudnnHandle_t dnn,
                   pass which, const conv_geometry& g,
                   const conv_descriptors& d, algorithm* out) {
    std::vector<int64_t> key{static_cast<int64_t>(which)};
    for (const auto& s : {g.input(), g.filter()})
      key.insert(key.end(), s.dims().begin(), s.dims().end());
    std::lock_guard<std::mutex> guard{mtx_};
    auto i = chosen_.find(key);
    if (i != chosen_.end()) {
      *out = i->second;
      return core::status::ok();
    }
    int count = 0;
    core::status st;
    switch (which) {
      case pass::forward: {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        st = check(f.forward_algorithms(
                     dnn, d.x.get(), d.filter.get(), d.conv.get(), d.y.get(),
                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf),
                   "cudnnGetConvolutionForwardAlgorithm_v7");
        if (st.is_ok())
          st = first_usable(perf, count, "forward", out);
        break;
      }
      case pass::data: {
        cudnnConvolutionBwdDataAlgoPerf_t
          perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        st = check(f.data_algorithms(
                     dnn, d.filter.get(), d.y.get(), d.conv.get(), d.x.get(),
                     CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf),
                   "cudnnGetConvolutionBackwardDataAlgorithm_v7");
        if (st.is_ok())
          st = first_usable(perf, count, "input-gradient", out);
        break;
      }
      case pass::filter: {
        cudnnConvolutionBwdFilterAlgoPerf_t
          perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        st = check(f.filter_algorithms(
                     dnn, d.x.get(), d.y.get(), d.conv.get(), d.filter.get(),
                     CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, perf),
                   "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
        if (st.is_ok())
          st = first_usable(perf, count, "filter-gradient", out);
        break;
      }
    }
    if (st.is_ok())
      chosen_.emplace(std::move(key), *out);
    return st;
  }

private:
  std::mutex mtx_;
  std::map<std::vector<int64_t>, algorithm> chosen_;
};

/// What the three kernels share: the attrs, cuDNN's handle and
/// descriptors, the algorithm cache, and the call of one pass.
class conv_base : public cheap_kernel {
protected:
  explicit conv_base(kernel_construction& ctx) {
    init_ = attrs_.read(ctx, false);
  }

  /// Runs `which` pass: `a` and `b` are its two operands in cuDNN's order
  /// (forward: image, filter; data: filter, gradient; filter: image,
  /// gradient), `out` its result.
  core::status run(kernel_context& ctx, pass which, const conv_geometry& g,
                   const core::tensor& a, const core::tensor& b,
                   core::tensor& out) {
    auto& dev = device_of(ctx);
    cudnnHandle_t dnn = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(dev.cudnn(&dnn));
    const auto& f = dev.dnn();
    conv_descriptors d;
    ACTORFLOW_RETURN_IF_ERROR(d.make(f, g));
    // The handle is not for concurrent use: held from the heuristics on.
    std::lock_guard<std::mutex> guard{dev.dnn_lock()};
    algorithm algo;
    ACTORFLOW_RETURN_IF_ERROR(algorithms_.get(f, dnn, which, g, d, &algo));
    core::tensor space;
    if (algo.workspace > 0)
      ACTORFLOW_RETURN_IF_ERROR(workspace(dev, algo.workspace, &space));
    void* ws = algo.workspace > 0 ? space.raw_mutable_data() : nullptr;
    float one = 1;
    float zero = 0;
    switch (which) {
      case pass::forward:
        return check(
          f.convolution_forward(
            dnn, &one, d.x.get(), a.raw_data(), d.filter.get(), b.raw_data(),
            d.conv.get(), static_cast<cudnnConvolutionFwdAlgo_t>(algo.id), ws,
            algo.workspace, &zero, d.y.get(), out.raw_mutable_data()),
          "cudnnConvolutionForward");
      case pass::data:
        return check(
          f.convolution_backward_data(
            dnn, &one, d.filter.get(), a.raw_data(), d.y.get(), b.raw_data(),
            d.conv.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(algo.id),
            ws, algo.workspace, &zero, d.x.get(), out.raw_mutable_data()),
          "cudnnConvolutionBackwardData");
      case pass::filter:
        return check(
          f.convolution_backward_filter(
            dnn, &one, d.x.get(), a.raw_data(), d.y.get(), b.raw_data(),
            d.conv.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo.id),
            ws, algo.workspace, &zero, d.filter.get(), out.raw_mutable_data()),
          "cudnnConvolutionBackwardFilter");
    }
    return core::internal_error("unknown convolution pass");
  }

  /// Fills `out` with zeros (a convolution over nothing).
  static core::status zeros(kernel_context& ctx, core::tensor& out) {
    return launched(cudaMemsetAsync(out.raw_mutable_data(), 0, out.bytes(),
                                    device_of(ctx).compute_stream()),
                    "Conv2D");
  }

  common::window_attrs attrs_;

private:
  algorithm_cache algorithms_;
};

/// Conv2D, and _FusedConv2D (then BiasAdd, and Relu if asked).
template <class T>
class conv2d_kernel : public conv_base {
public:
  explicit conv2d_kernel(kernel_construction& ctx) : conv_base(ctx) {
    if (!init_.is_ok() || ctx.node().op != "_FusedConv2D")
      return;
    std::vector<std::string> fused;
    init_ = ctx.get_attr("fused_ops", &fused);
    fused_ = true;
    relu_ = fused == std::vector<std::string>{"BiasAdd", "Relu"};
    if (init_.is_ok() && !relu_ && fused != std::vector<std::string>{"BiasAdd"})
      init_ = core::unimplemented_error(
        "_FusedConv2D fuses BiasAdd or BiasAdd and Relu");
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& f = ctx.input(1);
    conv_geometry g;
    ACTORFLOW_OP_REQUIRES_OK(ctx, plan_conv(attrs_, x.shape(), f.shape(), &g));
    if (fused_) {
      const auto& bias = ctx.input(2);
      ACTORFLOW_OP_REQUIRES(
        ctx, bias.shape() == core::shape{g.cout},
        core::invalid_argument_error(
          "_FusedConv2D needs a bias as long as the filter's output "
          "channels, got ",
          bias.shape().to_string(), " for filter ", f.shape().to_string()));
    }
    core::tensor* y = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, g.output(), &y));
    if (y->num_elements() == 0)
      return;
    auto& dev = device_of(ctx);
    if (g.empty()) {
      ACTORFLOW_OP_REQUIRES_OK(ctx, zeros(ctx, *y));
    } else {
      core::tensor image = x;
      if (g.needs_padding())
        ACTORFLOW_OP_REQUIRES_OK(ctx, pad_image(dev, g, x, &image));
      core::tensor filter;
      ACTORFLOW_OP_REQUIRES_OK(ctx, to_ohwi(dev, f, &filter));
      ACTORFLOW_OP_REQUIRES_OK(ctx,
                               run(ctx, pass::forward, g, image, filter, *y));
    }
    if (fused_)
      ACTORFLOW_OP_REQUIRES_OK(
        ctx,
        launched(bias_add(elem::f32, y->raw_data(), ctx.input(2).raw_data(),
                          y->raw_mutable_data(), y->num_elements() / g.cout,
                          g.cout, relu_, dev.compute_stream()),
                 "_FusedConv2D"));
  }

private:
  bool fused_ = false;
  bool relu_ = false;
};

/// Conv2DBackpropInput (`Input`: input_sizes, filter, out_backprop) and
/// Conv2DBackpropFilter (input, filter_sizes, out_backprop); the sizes in
/// host memory.
template <class T, bool Input>
class conv2d_backprop_kernel : public conv_base {
public:
  explicit conv2d_backprop_kernel(kernel_construction& ctx) : conv_base(ctx) {
  }

  void compute(kernel_context& ctx) override {
    const auto& dy = ctx.input(2);
    auto sizes = common::read_ints(ctx.input(Input ? 0 : 1));
    ACTORFLOW_OP_REQUIRES(
      ctx, sizes.size() == 4,
      core::invalid_argument_error(Input ? "input_sizes" : "filter_sizes",
                                   " must have 4 elements"));
    core::shape xs = Input ? core::shape{sizes} : ctx.input(0).shape();
    core::shape fs = Input ? ctx.input(1).shape() : core::shape{sizes};
    conv_geometry g;
    ACTORFLOW_OP_REQUIRES_OK(ctx, plan_conv(attrs_, xs, fs, &g));
    ACTORFLOW_OP_REQUIRES(ctx, dy.shape() == g.output(),
                          core::invalid_argument_error(
                            "out_backprop has shape ", dy.shape().to_string(),
                            ", Conv2D gives ", g.output().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             ctx.allocate_output(0, Input ? xs : fs, &out));
    if (out->num_elements() == 0)
      return;
    if (g.empty()) {
      ACTORFLOW_OP_REQUIRES_OK(ctx, zeros(ctx, *out));
      return;
    }
    auto& dev = device_of(ctx);
    if constexpr (Input) {
      core::tensor filter;
      ACTORFLOW_OP_REQUIRES_OK(ctx, to_ohwi(dev, ctx.input(1), &filter));
      if (!g.needs_padding()) {
        ACTORFLOW_OP_REQUIRES_OK(ctx,
                                 run(ctx, pass::data, g, filter, dy, *out));
        return;
      }
      // The padded image's gradient, cropped to the image.
      core::tensor padded;
      ACTORFLOW_OP_REQUIRES_OK(ctx, scratch(dev, g.padded(), &padded));
      ACTORFLOW_OP_REQUIRES_OK(ctx,
                               run(ctx, pass::data, g, filter, dy, padded));
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, copy_strided(dev, padded, *out, out_of_padded(g.padded(), xs)));
    } else {
      core::tensor image = ctx.input(0);
      if (g.needs_padding())
        ACTORFLOW_OP_REQUIRES_OK(ctx, pad_image(dev, g, ctx.input(0), &image));
      core::tensor grad;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, scratch(dev, {g.cout, g.h.k, g.w.k, g.cin}, &grad));
      ACTORFLOW_OP_REQUIRES_OK(ctx, run(ctx, pass::filter, g, image, dy, grad));
      ACTORFLOW_OP_REQUIRES_OK(ctx, to_hwio(dev, grad, *out));
    }
  }
};

template <bool Input>
struct conv_backprop {
  template <class T>
  using kernel = conv2d_backprop_kernel<T, Input>;
};

} // namespace

void register_conv_kernels(kernel_registry& r) {
  r.add_typed<conv2d_kernel, float>("Conv2D", device_type);
  r.add_typed<conv2d_kernel, float>("_FusedConv2D", device_type);
  r.add_typed<conv_backprop<true>::kernel, float>(
    "Conv2DBackpropInput", device_type, "T", host_memory({0}, {}));
  r.add_typed<conv_backprop<false>::kernel, float>(
    "Conv2DBackpropFilter", device_type, "T", host_memory({1}, {}));
}

} // namespace actorflow::ops::gpu
