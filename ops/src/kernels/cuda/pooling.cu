// MaxPool and AvgPool over NHWC images and their gradients. TensorFlow's
// SAME windows may pad one element more after than before, which cuDNN's
// pooling cannot express; these kernels follow the CPU's exactly.

#include "grid.cuh"
#include "index_math.hpp"

namespace actorflow::ops::gpu {

namespace {

/// One thread per output element; channels innermost, so neighbouring
/// threads read neighbouring channels.
template <class T, bool Max>
__global__ void pool_kernel(const T* x, T* y, pool_geometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x)
    y[i] = pool_at(x, g, i, Max);
}

/// One thread per input element (index_math.hpp's pool_grad_at).
template <class T, bool Max>
__global__ void pool_grad_kernel(const T* x, const T* dy, T* dx,
                                 pool_geometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x)
    dx[i] = pool_grad_at(x, dy, g, i, Max);
}

template <class T>
cudaError_t pool_typed(bool max, const void* x, void* y, const pool_geometry& g,
                       cudaStream_t stream) {
  auto n = g.batch * g.out_h * g.out_w * g.channels;
  if (n == 0)
    return cudaSuccess;
  auto* in = static_cast<const T*>(x);
  auto* out = static_cast<T*>(y);
  if (max)
    pool_kernel<T, true><<<blocks_for(n), threads, 0, stream>>>(in, out, g, n);
  else
    pool_kernel<T, false><<<blocks_for(n), threads, 0, stream>>>(in, out, g, n);
  return cudaGetLastError();
}

template <class T, bool Max>
cudaError_t pool_grad_typed(const void* x, const void* dy, void* dx,
                            const pool_geometry& g, cudaStream_t stream) {
  auto n = g.batch * g.in_h * g.in_w * g.channels;
  if (n == 0)
    return cudaSuccess;
  pool_grad_kernel<T, Max><<<blocks_for(n), threads, 0, stream>>>(
    static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx), g,
    n);
  return cudaGetLastError();
}

} // namespace

cudaError_t pool(elem type, bool max, const void* x, void* y,
                 const pool_geometry& g, cudaStream_t stream) {
  if (type == elem::f32)
    return pool_typed<float>(max, x, y, g, stream);
  if (type == elem::f64)
    return pool_typed<double>(max, x, y, g, stream);
  return cudaErrorInvalidValue;
}

cudaError_t max_pool_grad(elem type, const void* x, const void* dy, void* dx,
                          const pool_geometry& g, cudaStream_t stream) {
  if (type == elem::f32)
    return pool_grad_typed<float, true>(x, dy, dx, g, stream);
  if (type == elem::f64)
    return pool_grad_typed<double, true>(x, dy, dx, g, stream);
  return cudaErrorInvalidValue;
}

cudaError_t avg_pool_grad(elem type, const void* dy, void* dx,
                          const pool_geometry& g, cudaStream_t stream) {
  if (type == elem::f32)
    return pool_grad_typed<float, false>(nullptr, dy, dx, g, stream);
  if (type == elem::f64)
    return pool_grad_typed<double, false>(nullptr, dy, dx, g, stream);
  return cudaErrorInvalidValue;
}

} // namespace actorflow::ops::gpu
