#pragma once

// The CUDA device. Internal: CUDA types appear here and in the CUDA
// kernels, never in a public header.

#include <functional>
#include <memory>
#include <mutex>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/devices/device.hpp"

namespace actorflow::devices::cuda {

class caching_allocator;
struct cublas_functions;
struct cudnn_functions;

/// Turns a CUDA error into a status naming `what` (empty status if ok).
core::status check(cudaError_t err, const char* what);

/// Turns a cuBLAS error into a status naming `what`.
core::status check(cublasStatus_t err, const char* what);

/// Turns a cuDNN error into a status naming `what`.
core::status check(cudnnStatus_t err, const char* what);

/// One GPU: a compute stream that every kernel queues on, a stream for
/// each copy direction, a caching allocator of device memory, a caching
/// allocator of pinned host memory (the staging buffers of copies), and
/// cuBLAS and cuDNN handles bound to the compute stream.
///
/// Kernels queue their work and return: a node actor never waits for the
/// GPU. Work queued on the compute stream runs in order, so a value a
/// kernel produced is ready for any later kernel on the device without a
/// wait, and a freed block of device memory may be handed out again at
/// once. A copy to the host completes with a callback (`then`), which the
/// runtime turns into a message.
class gpu_device : public device {
public:
  /// Starts GPU `ordinal` (cudaSetDevice, streams, handles); a failure is
  /// `init_status()`.
  gpu_device(core::device_name name, int ordinal);

  ~gpu_device() override;

  const core::status& init_status() const noexcept {
    return init_;
  }

  const std::shared_ptr<core::allocator>&
  allocator(core::memory_type where) const override;

  /// Runs `work` on a CUDA callback thread once the compute stream's work
  /// queued so far is done. `work` must not call CUDA.
  void schedule(std::function<void()> work) override;

  void when_idle(done_callback done) override;

  int num_threads() const noexcept override {
    return 1;
  }

  int ordinal() const noexcept {
    return ordinal_;
  }

  /// Makes this device current on the calling thread (every thread that
  /// queues work for it calls this first; it is cheap).
  void activate() const noexcept;

  cudaStream_t compute_stream() const noexcept {
    return compute_;
  }

  /// Returns the cuBLAS handle, bound to the compute stream. cuBLAS handles
  /// are not for concurrent use: hold `blas_lock()` while queuing.
  cublasHandle_t cublas() const noexcept {
    return cublas_;
  }

  /// Returns cuBLAS's functions (loaded when the device was made).
  const cublas_functions& blas() const noexcept {
    return *blas_;
  }

  std::mutex& blas_lock() const noexcept {
    return blas_mtx_;
  }

  /// Returns the cuDNN handle, bound to the compute stream, made on first
  /// use (cuDNN is loaded then: it takes a while); hold `dnn_lock()` while
  /// queuing.
  core::status cudnn(cudnnHandle_t* out);

  /// Returns cuDNN's functions; valid once `cudnn()` has succeeded.
  const cudnn_functions& dnn() const noexcept {
    return *dnn_;
  }

  std::mutex& dnn_lock() const noexcept {
    return dnn_mtx_;
  }

  /// Calls `fn` on a CUDA callback thread once the work queued on `stream`
  /// so far is done; `fn` must not call CUDA.
  core::status then(cudaStream_t stream, std::function<void()> fn);

  /// Copies host tensor `src` to new device memory. The copy runs on the
  /// host-to-device stream after the compute stream's queued work (a
  /// freed block may be reused by it) and the compute stream waits for it:
  /// `out` is usable by kernels at once. `src` is held until the copy is
  /// done.
  core::status copy_to_device(const core::tensor& src, core::tensor* out);

  /// Copies device tensor `src` to new pinned host memory on the
  /// device-to-host stream, after the compute stream's queued work, then
  /// calls `done` (on a CUDA callback thread) with the host tensor.
  void copy_to_host(const core::tensor& src,
                    std::function<void(core::status, core::tensor)> done);

  /// Copies device tensor `src` to new device memory on the compute stream.
  core::status copy_on_device(const core::tensor& src, core::tensor* out);

  /// Returns the bytes of device memory kept in freed blocks.
  size_t cached_bytes() const;

private:
  int ordinal_;
  core::status init_;
  cudaStream_t compute_ = nullptr;
  cudaStream_t h2d_ = nullptr;
  cudaStream_t d2h_ = nullptr;
  const cublas_functions* blas_ = nullptr; ///< Set once cuBLAS is loaded.
  const cudnn_functions* dnn_ = nullptr;   ///< Set once cuDNN is loaded.
  cublasHandle_t cublas_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  mutable std::mutex blas_mtx_;
  mutable std::mutex dnn_mtx_;
  std::shared_ptr<core::allocator> device_alloc_;
  std::shared_ptr<core::allocator> pinned_alloc_;
};

/// Returns `ctx_device` as a GPU device, or nullptr.
gpu_device* as_gpu(device& dev) noexcept;

} // namespace actorflow::devices::cuda
