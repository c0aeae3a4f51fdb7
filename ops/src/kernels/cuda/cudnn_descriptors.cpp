#include "cudnn_descriptors.hpp"

namespace actorflow::ops::gpu {

core::status nhwc_descriptor::make(const devices::cuda::cudnn_functions& f,
                                   int64_t n, int64_t h, int64_t w, int64_t c) {
  ACTORFLOW_RETURN_IF_ERROR(
    dnn_descriptor::make(f.create_tensor, f.destroy_tensor));
  return devices::cuda::check(
    f.set_tensor_4d(get(), CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT,
                    static_cast<int>(n), static_cast<int>(c),
                    static_cast<int>(h), static_cast<int>(w)),
    "cudnnSetTensor4dDescriptor");
}

core::status scratch(devices::cuda::gpu_device& dev, core::shape dims,
                     core::tensor* out) {
  return core::tensor::make(dev.allocator(core::memory_type::device),
                            core::dtype::float32, std::move(dims), out);
}

core::status workspace(devices::cuda::gpu_device& dev, size_t bytes,
                       core::tensor* out) {
  return core::tensor::make(dev.allocator(core::memory_type::device),
                            core::dtype::uint8,
                            core::shape{static_cast<int64_t>(bytes)}, out);
}

} // namespace actorflow::ops::gpu
