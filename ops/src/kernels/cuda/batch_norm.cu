// The parts of FusedBatchNorm and its gradient that cuDNN does not do:
// TensorFlow's statistics outputs, and the gradient with frozen statistics.

#include "grid.cuh"
#include "launch.hpp"

namespace actorflow::ops::gpu {

namespace {

__global__ void statistics_kernel(const float* mean, const float* var,
                                  const float* running_mean,
                                  const float* running_var, float factor,
                                  int64_t rows, int64_t channels,
                                  float* batch_mean, float* batch_var,
                                  float* saved_mean, float* saved_var) {
  for (int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; c < channels;
       c += int64_t{blockDim.x} * gridDim.x) {
    // cuDNN's variance has Bessel's correction; one row has none.
    float unbiased = rows > 1 ? var[c] : 0.0f;
    float biased = rows > 1 ? var[c] * float(rows - 1) / float(rows) : 0.0f;
    float m = mean[c];
    saved_mean[c] = m;
    saved_var[c] = biased;
    if (running_mean != nullptr) {
      m = (1 - factor) * running_mean[c] + factor * m;
      unbiased = (1 - factor) * running_var[c] + factor * unbiased;
    }
    batch_mean[c] = m;
    batch_var[c] = unbiased;
  }
}

__global__ void inverse_std_kernel(const float* var, float epsilon, float* inv,
                                   int64_t n) {
  for (int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; c < n;
       c += int64_t{blockDim.x} * gridDim.x)
    inv[c] = rsqrtf(var[c] + epsilon);
}

/// The threads of a block: 32 channels by 8 lanes of rows.
constexpr int lanes = 8;

/// Per channel, the sums of dy and of dy * (x - mean) * inv: each block
/// takes 32 neighbouring channels, its 8 lanes of threads stride over the
/// rows, then the lanes' sums are added in shared memory.
__global__ void frozen_sums_kernel(const float* dy, const float* x,
                                   const float* mean, const float* inv,
                                   float* dscale, float* doffset, int64_t rows,
                                   int64_t channels) {
  __shared__ float sum_g[lanes][32];
  __shared__ float sum_gx[lanes][32];
  int64_t c = blockIdx.x * int64_t{32} + threadIdx.x;
  float g = 0;
  float gx = 0;
  if (c < channels)
    for (int64_t r = threadIdx.y; r < rows; r += lanes) {
      float d = dy[r * channels + c];
      g += d;
      gx += d * (x[r * channels + c] - mean[c]) * inv[c];
    }
  sum_g[threadIdx.y][threadIdx.x] = g;
  sum_gx[threadIdx.y][threadIdx.x] = gx;
  __syncthreads();
  if (threadIdx.y == 0 && c < channels) {
    for (int l = 1; l < lanes; ++l) {
      g += sum_g[l][threadIdx.x];
      gx += sum_gx[l][threadIdx.x];
    }
    doffset[c] = g;
    dscale[c] = gx;
  }
}

__global__ void frozen_dx_kernel(const float* dy, const float* scale,
                                 const float* inv, float* dx, int64_t n,
                                 int64_t channels) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    auto c = i % channels;
    dx[i] = dy[i] * scale[c] * inv[c];
  }
}

} // namespace

cudaError_t batch_norm_statistics(const float* mean, const float* var,
                                  const float* running_mean,
                                  const float* running_var, double factor,
                                  int64_t rows, int64_t channels,
                                  float* batch_mean, float* batch_var,
                                  float* saved_mean, float* saved_var,
                                  cudaStream_t stream) {
  if (channels == 0)
    return cudaSuccess;
  statistics_kernel<<<blocks_for(channels), threads, 0, stream>>>(
    mean, var, running_mean, running_var, static_cast<float>(factor), rows,
    channels, batch_mean, batch_var, saved_mean, saved_var);
  return cudaGetLastError();
}

cudaError_t inverse_std(const float* var, double epsilon, float* inv,
                        int64_t channels, cudaStream_t stream) {
  if (channels == 0)
    return cudaSuccess;
  inverse_std_kernel<<<blocks_for(channels), threads, 0, stream>>>(
    var, static_cast<float>(epsilon), inv, channels);
  return cudaGetLastError();
}

cudaError_t batch_norm_frozen_grad(const float* dy, const float* x,
                                   const float* scale, const float* mean,
                                   const float* inv, float* dx, float* dscale,
                                   float* doffset, int64_t rows,
                                   int64_t channels, cudaStream_t stream) {
  if (channels == 0)
    return cudaSuccess;
  auto blocks = static_cast<unsigned>((channels + 31) / 32);
  frozen_sums_kernel<<<blocks, dim3(32, lanes), 0, stream>>>(
    dy, x, mean, inv, dscale, doffset, rows, channels);
  auto n = rows * channels;
  if (n > 0)
    frozen_dx_kernel<<<blocks_for(n), threads, 0, stream>>>(dy, scale, inv, dx,
                                                            n, channels);
  return cudaGetLastError();
}

} // namespace actorflow::ops::gpu
