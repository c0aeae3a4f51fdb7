#include "gpu_device.hpp"

#include <cstring>

#include "actorflow/core/logging.hpp"
#include "caching_allocator.hpp"
#include "cuda_libraries.hpp"

namespace actorflow::devices::cuda {

core::status check(cudaError_t err, const char* what) {
  if (err == cudaSuccess)
    return core::status::ok();
  if (err == cudaErrorMemoryAllocation)
    return core::resource_exhausted_error(what, ": ", cudaGetErrorString(err));
  return core::internal_error(what, ": CUDA error ", cudaGetErrorName(err),
                              " (", cudaGetErrorString(err), ")");
}

core::status check(cublasStatus_t err, const char* what) {
  if (err == CUBLAS_STATUS_SUCCESS)
    return core::status::ok();
  // A cuBLAS status comes from a loaded cuBLAS.
  const cublas_functions* blas = nullptr;
  std::string text = load_cublas(&blas).is_ok()
                       ? blas->status_string(err)
                       : "status " + std::to_string(static_cast<int>(err));
  if (err == CUBLAS_STATUS_ALLOC_FAILED)
    return core::resource_exhausted_error(what, ": ", text);
  return core::internal_error(what, ": cuBLAS error ", text);
}

core::status check(cudnnStatus_t err, const char* what) {
  if (err == CUDNN_STATUS_SUCCESS)
    return core::status::ok();
  const cudnn_functions* dnn = nullptr;
  std::string text = load_cudnn(&dnn).is_ok()
                       ? dnn->error_string(err)
                       : "status " + std::to_string(static_cast<int>(err));
  return core::internal_error(what, ": cuDNN error ", text);
}

namespace {

/// A callback queued with cudaLaunchHostFunc.
void CUDART_CB run_callback(void* arg) {
  std::unique_ptr<std::function<void()>> fn{
    static_cast<std::function<void()>*>(arg)};
  (*fn)();
}

} // namespace

gpu_device::gpu_device(core::device_name name, int ordinal)
  : device(std::move(name)), ordinal_(ordinal) {
  auto step = [this](core::status st) {
    if (init_.is_ok() && !st.is_ok())
      init_ = st.with_context("", "", this->name());
    return init_.is_ok();
  };
  if (!step(check(cudaSetDevice(ordinal), "cudaSetDevice")))
    return;
  for (auto* s : {&compute_, &h2d_, &d2h_})
    if (!step(check(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking),
                    "cudaStreamCreate")))
      return;
  if (!step(load_cublas(&blas_))
      || !step(check(blas_->create(&cublas_), "cublasCreate"))
      || !step(check(blas_->set_stream(cublas_, compute_), "cublasSetStream")))
    return;
  auto dev = ordinal;
  device_alloc_ = std::make_shared<caching_allocator>(
    "gpu:" + std::to_string(ordinal), core::memory_type::device,
    [dev](size_t n) -> void* {
      void* ptr = nullptr;
      cudaSetDevice(dev);
      if (cudaMalloc(&ptr, n) != cudaSuccess) {
        cudaGetLastError(); // clears the sticky-free error state
        return nullptr;
      }
      return ptr;
    },
    [dev](void* ptr) {
      cudaSetDevice(dev);
      cudaFree(ptr);
    });
  pinned_alloc_ = std::make_shared<caching_allocator>(
    "gpu:" + std::to_string(ordinal) + " pinned host", core::memory_type::host,
    [](size_t n) -> void* {
      void* ptr = nullptr;
      if (cudaHostAlloc(&ptr, n, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
      }
      return ptr;
    },
    [](void* ptr) { cudaFreeHost(ptr); });
}

gpu_device::~gpu_device() {
  if (compute_ != nullptr) {
    cudaSetDevice(ordinal_);
    cudaDeviceSynchronize();
  }
  if (cudnn_ != nullptr)
    dnn_->destroy(cudnn_);
  if (cublas_ != nullptr)
    blas_->destroy(cublas_);
  for (auto* s : {compute_, h2d_, d2h_})
    if (s != nullptr)
      cudaStreamDestroy(s);
}

const std::shared_ptr<core::allocator>&
gpu_device::allocator(core::memory_type where) const {
  return where == core::memory_type::device ? device_alloc_ : pinned_alloc_;
}

void gpu_device::activate() const noexcept {
  cudaSetDevice(ordinal_);
}

core::status gpu_device::then(cudaStream_t stream, std::function<void()> fn) {
  auto* arg = new std::function<void()>(std::move(fn));
  auto st = check(cudaLaunchHostFunc(stream, run_callback, arg),
                  "cudaLaunchHostFunc");
  if (!st.is_ok())
    delete arg;
  return st;
}

void gpu_device::schedule(std::function<void()> work) {
  activate();
  auto st = then(compute_, work);
  if (!st.is_ok()) {
    core::log().error("{}: cannot queue a callback: {}", name(),
                      st.to_string());
    work();
  }
}

void gpu_device::when_idle(done_callback done) {
  activate();
  auto fn = std::make_shared<done_callback>(std::move(done));
  auto st = then(compute_, [fn] { (*fn)(core::status::ok()); });
  if (!st.is_ok())
    (*fn)(st);
}

core::status gpu_device::cudnn(cudnnHandle_t* out) {
  std::lock_guard<std::mutex> guard{dnn_mtx_};
  if (cudnn_ == nullptr) {
    activate();
    ACTORFLOW_RETURN_IF_ERROR(load_cudnn(&dnn_));
    ACTORFLOW_RETURN_IF_ERROR(check(dnn_->create(&cudnn_), "cudnnCreate"));
    ACTORFLOW_RETURN_IF_ERROR(
      check(dnn_->set_stream(cudnn_, compute_), "cudnnSetStream"));
  }
  *out = cudnn_;
  return core::status::ok();
}

namespace {

/// An event on `from` that `to` waits for: work queued on `to` afterwards
/// starts once `from`'s queued work is done.
core::status order(cudaStream_t from, cudaStream_t to) {
  cudaEvent_t ev;
  ACTORFLOW_RETURN_IF_ERROR(check(
    cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate"));
  auto st = check(cudaEventRecord(ev, from), "cudaEventRecord");
  if (st.is_ok())
    st = check(cudaStreamWaitEvent(to, ev, 0), "cudaStreamWaitEvent");
  cudaEventDestroy(ev); // freed once the event completes
  return st;
}

} // namespace

core::status gpu_device::copy_to_device(const core::tensor& src,
                                        core::tensor* out) {
  if (src.dtype() == core::dtype::string || src.dtype() == core::dtype::variant)
    return core::unimplemented_error(core::to_string(src.dtype()),
                                     " tensors cannot live on ", name());
  activate();
  core::tensor dst;
  ACTORFLOW_RETURN_IF_ERROR(
    core::tensor::make(device_alloc_, src.dtype(), src.shape(), &dst));
  if (src.bytes() > 0) {
    ACTORFLOW_RETURN_IF_ERROR(order(compute_, h2d_));
    ACTORFLOW_RETURN_IF_ERROR(
      check(cudaMemcpyAsync(dst.raw_mutable_data(), src.raw_data(), src.bytes(),
                            cudaMemcpyHostToDevice, h2d_),
            "copy to the device"));
    ACTORFLOW_RETURN_IF_ERROR(order(h2d_, compute_));
    // From pageable memory the copy has read `src` before it returns; from
    // pinned memory it reads later, so `src` stays alive until then.
    if (src.memory() == core::memory_type::host)
      ACTORFLOW_RETURN_IF_ERROR(then(h2d_, [keep = src] { (void)keep; }));
  }
  *out = std::move(dst);
  return core::status::ok();
}

void gpu_device::copy_to_host(
  const core::tensor& src,
  std::function<void(core::status, core::tensor)> done) {
  activate();
  core::tensor dst;
  auto st = core::tensor::make(pinned_alloc_, src.dtype(), src.shape(), &dst);
  if (st.is_ok() && src.bytes() > 0) {
    st = order(compute_, d2h_);
    if (st.is_ok())
      st = check(cudaMemcpyAsync(dst.raw_mutable_data(), src.raw_data(),
                                 src.bytes(), cudaMemcpyDeviceToHost, d2h_),
                 "copy to the host");
  }
  if (!st.is_ok()) {
    done(st, core::tensor{});
    return;
  }
  auto fn = std::make_shared<decltype(done)>(std::move(done));
  st = then(d2h_, [fn, keep = src, dst]() mutable {
    keep = core::tensor{};
    (*fn)(core::status::ok(), std::move(dst));
  });
  if (!st.is_ok())
    (*fn)(st, core::tensor{});
}

core::status gpu_device::copy_on_device(const core::tensor& src,
                                        core::tensor* out) {
  activate();
  core::tensor dst;
  ACTORFLOW_RETURN_IF_ERROR(
    core::tensor::make(device_alloc_, src.dtype(), src.shape(), &dst));
  if (src.bytes() > 0)
    ACTORFLOW_RETURN_IF_ERROR(
      check(cudaMemcpyAsync(dst.raw_mutable_data(), src.raw_data(), src.bytes(),
                            cudaMemcpyDeviceToDevice, compute_),
            "copy on the device"));
  *out = std::move(dst);
  return core::status::ok();
}

size_t gpu_device::cached_bytes() const {
  return static_cast<caching_allocator&>(*device_alloc_).cached_bytes();
}

gpu_device* as_gpu(device& dev) noexcept {
  return dynamic_cast<gpu_device*>(&dev);
}

} // namespace actorflow::devices::cuda
