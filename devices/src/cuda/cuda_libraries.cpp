#include "cuda_libraries.hpp"

#include <dlfcn.h>

#include <string>

namespace actorflow::devices::cuda {

namespace {

/// A library's functions once loaded, or why not.
template <class Functions>
struct loaded {
  Functions functions;
  core::status status;
};

/// Resolves the functions of `soname` by `bind(symbol)`, which looks each
/// one up and returns false when one is missing.
template <class Functions, class Bind>
loaded<Functions> load(const std::string& soname, Bind bind) {
  loaded<Functions> result;
  // RTLD_LOCAL: the library's symbols stay out of the global namespace;
  // nothing else resolves against them.
  void* handle = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    result.status = core::unavailable_error(
      "cannot load ", soname, ": ", why != nullptr ? why : "unknown error",
      " (is CUDA's library directory on the loader's path?)");
    return result;
  }
  std::string missing;
  auto symbol = [&](const char* name) -> void* {
    void* fn = ::dlsym(handle, name);
    if (fn == nullptr)
      missing += missing.empty() ? name : std::string{", "} + name;
    return fn;
  };
  bind(result.functions, symbol);
  if (!missing.empty())
    result.status = core::unavailable_error(
      soname, " lacks functions the engine calls: ", missing);
  return result;
}

/// Sets `fn` to the function `name` that `symbol` finds.
template <class Fn, class Symbol>
void bind_one(Fn& fn, const char* name, Symbol& symbol) {
  fn = reinterpret_cast<Fn>(symbol(name));
}

/// Hands out `lib`'s functions if it loaded, nullptr if not.
template <class Functions>
core::status hand_out(const loaded<Functions>& lib, const Functions** out) {
  *out = lib.status.is_ok() ? &lib.functions : nullptr;
  return lib.status;
}

} // namespace

core::status load_cublas(const cublas_functions** out) {
  static const auto lib = load<cublas_functions>(
    "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR),
    [](cublas_functions& f, auto& symbol) {
      bind_one(f.create, "cublasCreate_v2", symbol);
      bind_one(f.destroy, "cublasDestroy_v2", symbol);
      bind_one(f.set_stream, "cublasSetStream_v2", symbol);
      bind_one(f.gemm_ex, "cublasGemmEx", symbol);
      bind_one(f.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx", symbol);
      bind_one(f.status_string, "cublasGetStatusString", symbol);
    });
  return hand_out(lib, out);
}

core::status load_cudnn(const cudnn_functions** out) {
  static const auto lib = load<cudnn_functions>(
    "libcudnn.so." + std::to_string(CUDNN_MAJOR),
    [](cudnn_functions& f, auto& symbol) {
      bind_one(f.create, "cudnnCreate", symbol);
      bind_one(f.destroy, "cudnnDestroy", symbol);
      bind_one(f.set_stream, "cudnnSetStream", symbol);
      bind_one(f.error_string, "cudnnGetErrorString", symbol);
      bind_one(f.create_tensor, "cudnnCreateTensorDescriptor", symbol);
      bind_one(f.destroy_tensor, "cudnnDestroyTensorDescriptor", symbol);
      bind_one(f.set_tensor_4d, "cudnnSetTensor4dDescriptor", symbol);
      bind_one(f.create_filter, "cudnnCreateFilterDescriptor", symbol);
      bind_one(f.destroy_filter, "cudnnDestroyFilterDescriptor", symbol);
      bind_one(f.set_filter_4d, "cudnnSetFilter4dDescriptor", symbol);
      bind_one(f.create_convolution, "cudnnCreateConvolutionDescriptor",
               symbol);
      bind_one(f.destroy_convolution, "cudnnDestroyConvolutionDescriptor",
               symbol);
      bind_one(f.set_convolution_2d, "cudnnSetConvolution2dDescriptor", symbol);
      bind_one(f.set_convolution_math, "cudnnSetConvolutionMathType", symbol);
      bind_one(f.forward_algorithms, "cudnnGetConvolutionForwardAlgorithm_v7",
               symbol);
      bind_one(f.data_algorithms, "cudnnGetConvolutionBackwardDataAlgorithm_v7",
               symbol);
      bind_one(f.filter_algorithms,
               "cudnnGetConvolutionBackwardFilterAlgorithm_v7", symbol);
      bind_one(f.convolution_forward, "cudnnConvolutionForward", symbol);
      bind_one(f.convolution_backward_data, "cudnnConvolutionBackwardData",
               symbol);
      bind_one(f.convolution_backward_filter, "cudnnConvolutionBackwardFilter",
               symbol);
      bind_one(f.batch_norm_training, "cudnnBatchNormalizationForwardTraining",
               symbol);
      bind_one(f.batch_norm_inference,
               "cudnnBatchNormalizationForwardInference", symbol);
      bind_one(f.batch_norm_backward, "cudnnBatchNormalizationBackward",
               symbol);
    });
  return hand_out(lib, out);
}

} // namespace actorflow::devices::cuda
