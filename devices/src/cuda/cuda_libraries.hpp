#pragma once

// Internal: cuBLAS and cuDNN, loaded when first needed.

#include <cublas_v2.h>
#include <cudnn.h>

#include "actorflow/core/status.hpp"

namespace actorflow::devices::cuda {

/// The cuBLAS functions the engine calls, from the library loaded (dlopen)
/// when the first GPU device is made rather than when the process starts:
/// loading cuBLAS runs its static initialisers (cuBLASLt's), which touch
/// ~210 MB and take ~0.1 s, and a process on a machine with CUDA installed
/// but no GPU -- every test and tool, on every such machine -- paid that.
/// TensorFlow loads CUDA's libraries the same way.
struct cublas_functions {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetStream_v2) set_stream = nullptr;
  /// (cuBLAS's C function; its header overloads the name in C++.)
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t,
                            cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*,
                            cudaDataType, int, const void*, void*, cudaDataType,
                            int, cublasComputeType_t, cublasGemmAlgo_t)
    = nullptr;
  /// The same over a batch of matrices at fixed strides.
  cublasStatus_t (*gemm_strided_batched_ex)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
    const void*, const void*, cudaDataType, int, long long int, const void*,
    cudaDataType, int, long long int, const void*, void*, cudaDataType, int,
    long long int, int, cublasComputeType_t, cublasGemmAlgo_t)
    = nullptr;
  decltype(&::cublasGetStatusString) status_string = nullptr;
};

/// The cuDNN functions the engine calls, loaded on first use.
struct cudnn_functions {
  decltype(&::cudnnCreate) create = nullptr;
  decltype(&::cudnnDestroy) destroy = nullptr;
  decltype(&::cudnnSetStream) set_stream = nullptr;
  decltype(&::cudnnGetErrorString) error_string = nullptr;
  // Descriptors.
  decltype(&::cudnnCreateTensorDescriptor) create_tensor = nullptr;
  decltype(&::cudnnDestroyTensorDescriptor) destroy_tensor = nullptr;
  decltype(&::cudnnSetTensor4dDescriptor) set_tensor_4d = nullptr;
  decltype(&::cudnnCreateFilterDescriptor) create_filter = nullptr;
  decltype(&::cudnnDestroyFilterDescriptor) destroy_filter = nullptr;
  decltype(&::cudnnSetFilter4dDescriptor) set_filter_4d = nullptr;
  decltype(&::cudnnCreateConvolutionDescriptor) create_convolution = nullptr;
  decltype(&::cudnnDestroyConvolutionDescriptor) destroy_convolution = nullptr;
  decltype(&::cudnnSetConvolution2dDescriptor) set_convolution_2d = nullptr;
  decltype(&::cudnnSetConvolutionMathType) set_convolution_math = nullptr;
  // Convolutions: the heuristics' algorithms, then the three passes.
  decltype(&::cudnnGetConvolutionForwardAlgorithm_v7) forward_algorithms
    = nullptr;
  decltype(&::cudnnGetConvolutionBackwardDataAlgorithm_v7) data_algorithms
    = nullptr;
  decltype(&::cudnnGetConvolutionBackwardFilterAlgorithm_v7) filter_algorithms
    = nullptr;
  decltype(&::cudnnConvolutionForward) convolution_forward = nullptr;
  decltype(&::cudnnConvolutionBackwardData) convolution_backward_data = nullptr;
  decltype(&::cudnnConvolutionBackwardFilter) convolution_backward_filter
    = nullptr;
  // Batch normalisation.
  decltype(&::cudnnBatchNormalizationForwardTraining) batch_norm_training
    = nullptr;
  decltype(&::cudnnBatchNormalizationForwardInference) batch_norm_inference
    = nullptr;
  decltype(&::cudnnBatchNormalizationBackward) batch_norm_backward = nullptr;
};

/// Loads cuBLAS (the major version the engine was built with) on the first
/// call and sets `out` to its functions, or returns why it cannot (the
/// library or a function missing: the message names them; `out` null);
/// the same on every call. The
/// library stays loaded for the life of the process, as a process can load
/// it only once. Thread-safe.
core::status load_cublas(const cublas_functions** out);

/// The same for cuDNN.
core::status load_cudnn(const cudnn_functions** out);

} // namespace actorflow::devices::cuda
