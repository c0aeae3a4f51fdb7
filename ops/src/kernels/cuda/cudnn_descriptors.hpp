#pragma once

// Internal: cuDNN's descriptors as owned objects, and the workspace and
// scratch tensors the cuDNN kernels borrow from the device's allocator.

#include <cstdint>

#include "cuda/cuda_libraries.hpp"
#include "gpu_kernels.hpp"

namespace actorflow::ops::gpu {

/// One cuDNN descriptor of type `Handle`, destroyed with this object.
template <class Handle>
class dnn_descriptor {
public:
  using destroy_fn = cudnnStatus_t (*)(Handle);

  dnn_descriptor() = default;
  dnn_descriptor(const dnn_descriptor&) = delete;
  dnn_descriptor& operator=(const dnn_descriptor&) = delete;

  ~dnn_descriptor() {
    if (handle_ != nullptr)
      destroy_(handle_);
  }

  /// Makes the descriptor with `create`; `destroy` frees it.
  core::status make(cudnnStatus_t (*create)(Handle*), destroy_fn destroy) {
    destroy_ = destroy;
    return devices::cuda::check(create(&handle_), "cuDNN descriptor");
  }

  Handle get() const noexcept {
    return handle_;
  }

private:
  Handle handle_ = nullptr;
  destroy_fn destroy_ = nullptr;
};

/// A descriptor of an NHWC float tensor [n, h, w, c] (or of [1, 1, 1, c]
/// channel parameters).
class nhwc_descriptor : public dnn_descriptor<cudnnTensorDescriptor_t> {
public:
  core::status make(const devices::cuda::cudnn_functions& f, int64_t n,
                    int64_t h, int64_t w, int64_t c);
};

/// A float tensor of `dims` in the device's memory, for the kernel's own
/// use (padded images, filters in cuDNN's layout, statistics); freed when
/// the last handle goes, its block reusable by work queued after.
core::status scratch(devices::cuda::gpu_device& dev, core::shape dims,
                     core::tensor* out);

/// `bytes` of device memory for cuDNN's workspace (none for 0).
core::status workspace(devices::cuda::gpu_device& dev, size_t bytes,
                       core::tensor* out);

} // namespace actorflow::ops::gpu
