// Copies of strided boxes: Transpose, and the padding, cropping and filter
// layouts of the convolutions. Elements are moved as 1-, 2-, 4- or 8-byte
// words, whatever their type.

#include "grid.cuh"
#include "index_math.hpp"

namespace actorflow::ops::gpu {

namespace {

/// One thread per element of the box, in the box's row-major order.
template <class W>
__global__ void copy_box_kernel(const W* src, W* dst, box_index box,
                                int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t from = 0;
    int64_t to = 0;
    box_offsets(box, i, &from, &to);
    dst[to] = src[from];
  }
}

template <class W>
cudaError_t copy_words(const void* src, void* dst, const box_index& box,
                       int64_t n, cudaStream_t stream) {
  copy_box_kernel<W><<<blocks_for(n), threads, 0, stream>>>(
    static_cast<const W*>(src), static_cast<W*>(dst), box, n);
  return cudaGetLastError();
}

} // namespace

cudaError_t copy_box(int elem_bytes, const void* src, void* dst,
                     const box_index& box, cudaStream_t stream) {
  int64_t n = 1;
  for (int d = 0; d < box.rank; ++d)
    n *= box.dims[d];
  if (n == 0)
    return cudaSuccess;
  switch (elem_bytes) {
    case 1: return copy_words<uint8_t>(src, dst, box, n, stream);
    case 2: return copy_words<uint16_t>(src, dst, box, n, stream);
    case 4: return copy_words<uint32_t>(src, dst, box, n, stream);
    case 8: return copy_words<uint64_t>(src, dst, box, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

} // namespace actorflow::ops::gpu
