// Element-wise CUDA kernels: binary functions with broadcasting, unary
// functions, casts and fills. Half and bfloat16 compute in float.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "grid.cuh"
#include "launch.hpp"

namespace actorflow::ops::gpu {

namespace {

template <class T>
struct compute {
  using type = T;
};
template <>
struct compute<__half> {
  using type = float;
};
template <>
struct compute<__nv_bfloat16> {
  using type = float;
};

template <class T>
__device__ typename compute<T>::type load(const T* p, int64_t i) {
  return static_cast<typename compute<T>::type>(p[i]);
}

template <class T, class C>
__device__ T to(C x) {
  return static_cast<T>(x);
}
template <>
__device__ __half to<__half, float>(float x) {
  return __float2half(x);
}
template <>
__device__ __nv_bfloat16 to<__nv_bfloat16, float>(float x) {
  return __float2bfloat16(x);
}

template <class C>
__device__ C apply_binary(binary_fn fn, C x, C y) {
  switch (fn) {
    case binary_fn::add: return x + y;
    case binary_fn::sub: return x - y;
    case binary_fn::mul: return x * y;
    case binary_fn::div: return x / y;
    case binary_fn::maximum: return x > y ? x : y;
    case binary_fn::minimum: return x < y ? x : y;
    case binary_fn::pow: return pow(x, y);
    case binary_fn::squared_difference: return (x - y) * (x - y);
    case binary_fn::relu_grad: return y > C(0) ? x : C(0);
    case binary_fn::tanh_grad: return y * (C(1) - x * x);
    case binary_fn::sigmoid_grad: return y * x * (C(1) - x);
    case binary_fn::sqrt_grad: return y * C(0.5) / x;
    case binary_fn::rsqrt_grad: return C(-0.5) * y * x * x * x;
    default: return C(0);
  }
}

template <class C>
__device__ bool apply_comparison(binary_fn fn, C x, C y) {
  switch (fn) {
    case binary_fn::less: return x < y;
    case binary_fn::less_equal: return x <= y;
    case binary_fn::greater: return x > y;
    case binary_fn::greater_equal: return x >= y;
    case binary_fn::equal: return x == y;
    default: return x != y;
  }
}

/// The operands' offsets of output element `i`.
__device__ void offsets(const broadcast_index& ix, int64_t i, int64_t* xo,
                        int64_t* yo) {
  int64_t a = 0;
  int64_t b = 0;
  for (int d = ix.rank - 1; d >= 0; --d) {
    auto k = i % ix.dims[d];
    i /= ix.dims[d];
    a += k * ix.x_strides[d];
    b += k * ix.y_strides[d];
  }
  *xo = a;
  *yo = b;
}

template <class T, class Out, bool Compare>
__global__ void binary_kernel(binary_fn fn, const T* x, const T* y, Out* z,
                              int64_t n, broadcast_index ix, bool same) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t xo = i;
    int64_t yo = i;
    if (!same)
      offsets(ix, i, &xo, &yo);
    auto a = load(x, xo);
    auto b = load(y, yo);
    if constexpr (Compare)
      z[i] = apply_comparison(fn, a, b);
    else
      z[i] = to<Out>(apply_binary(fn, a, b));
  }
}

template <class T>
cudaError_t binary_typed(binary_fn fn, const void* x, const void* y, void* z,
                         int64_t n, const broadcast_index& ix,
                         cudaStream_t stream) {
  // Same shapes (rank 1, both strides 1): no index arithmetic.
  bool same = ix.rank == 1 && ix.x_strides[0] == 1 && ix.y_strides[0] == 1;
  auto* a = static_cast<const T*>(x);
  auto* b = static_cast<const T*>(y);
  if (is_comparison(fn))
    binary_kernel<T, bool, true><<<blocks_for(n), threads, 0, stream>>>(
      fn, a, b, static_cast<bool*>(z), n, ix, same);
  else
    binary_kernel<T, T, false><<<blocks_for(n), threads, 0, stream>>>(
      fn, a, b, static_cast<T*>(z), n, ix, same);
  return cudaGetLastError();
}

template <class C>
__device__ C apply_unary(unary_fn fn, C x) {
  switch (fn) {
    case unary_fn::neg: return -x;
    case unary_fn::abs: return x < C(0) ? -x : x;
    case unary_fn::exp: return exp(x);
    case unary_fn::log: return log(x);
    case unary_fn::sqrt: return sqrt(x);
    case unary_fn::rsqrt: return C(1) / sqrt(x);
    case unary_fn::square: return x * x;
    case unary_fn::tanh: return tanh(x);
    case unary_fn::sigmoid: return C(1) / (C(1) + exp(-x));
    case unary_fn::relu: return x > C(0) ? x : C(0);
    case unary_fn::relu6: return x > C(0) ? (x < C(6) ? x : C(6)) : C(0);
    case unary_fn::reciprocal: return C(1) / x;
    case unary_fn::sign: return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
    case unary_fn::floor: return floor(x);
    case unary_fn::ceil: return ceil(x);
    case unary_fn::log1p: return log1p(x);
    case unary_fn::sin: return sin(x);
    case unary_fn::cos: return cos(x);
  }
  return x;
}

template <class T>
__global__ void unary_kernel(unary_fn fn, const T* x, T* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x)
    y[i] = to<T>(apply_unary(fn, load(x, i)));
}

template <class T>
cudaError_t unary_typed(unary_fn fn, const void* x, void* y, int64_t n,
                        cudaStream_t stream) {
  unary_kernel<T><<<blocks_for(n), threads, 0, stream>>>(
    fn, static_cast<const T*>(x), static_cast<T*>(y), n);
  return cudaGetLastError();
}

/// Converts through float for the 16-bit types, directly otherwise.
template <class From, class To>
__device__ To convert(From x) {
  if constexpr (std::is_same_v<To, bool>)
    return static_cast<float>(x) != 0.0f;
  else if constexpr (std::is_same_v<
                       To, __half> || std::is_same_v<To, __nv_bfloat16>)
    return to<To>(static_cast<float>(x));
  else if constexpr (std::is_same_v<
                       From, __half> || std::is_same_v<From, __nv_bfloat16>)
    return static_cast<To>(static_cast<float>(x));
  else
    return static_cast<To>(x);
}

template <class From, class To>
__global__ void cast_kernel(const From* x, To* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x)
    y[i] = convert<From, To>(x[i]);
}

template <class T>
__global__ void fill_kernel(T value, T* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x)
    y[i] = value;
}

/// Calls `f` with a null pointer of the C++ type of `type`.
template <class F>
cudaError_t dispatch(elem type, F&& f) {
  switch (type) {
    case elem::f16: return f(static_cast<__half*>(nullptr));
    case elem::bf16: return f(static_cast<__nv_bfloat16*>(nullptr));
    case elem::f32: return f(static_cast<float*>(nullptr));
    case elem::f64: return f(static_cast<double*>(nullptr));
    case elem::i32: return f(static_cast<int32_t*>(nullptr));
    case elem::i64: return f(static_cast<int64_t*>(nullptr));
    case elem::b8: return f(static_cast<bool*>(nullptr));
    case elem::u8: return f(static_cast<uint8_t*>(nullptr));
  }
  return cudaErrorInvalidValue;
}

} // namespace

cudaError_t binary(binary_fn fn, elem type, const void* x, const void* y,
                   void* z, int64_t n, const broadcast_index& index,
                   cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  switch (type) {
    case elem::f16: return binary_typed<__half>(fn, x, y, z, n, index, stream);
    case elem::bf16:
      return binary_typed<__nv_bfloat16>(fn, x, y, z, n, index, stream);
    case elem::f32: return binary_typed<float>(fn, x, y, z, n, index, stream);
    case elem::f64: return binary_typed<double>(fn, x, y, z, n, index, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t unary(unary_fn fn, elem type, const void* x, void* y, int64_t n,
                  cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  switch (type) {
    case elem::f16: return unary_typed<__half>(fn, x, y, n, stream);
    case elem::bf16: return unary_typed<__nv_bfloat16>(fn, x, y, n, stream);
    case elem::f32: return unary_typed<float>(fn, x, y, n, stream);
    case elem::f64: return unary_typed<double>(fn, x, y, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t cast(elem from, elem to_type, const void* x, void* y, int64_t n,
                 cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  return dispatch(from, [&](auto* f) {
    using From = std::remove_pointer_t<decltype(f)>;
    return dispatch(to_type, [&](auto* t) {
      using To = std::remove_pointer_t<decltype(t)>;
      cast_kernel<From, To><<<blocks_for(n), threads, 0, stream>>>(
        static_cast<const From*>(x), static_cast<To*>(y), n);
      return cudaGetLastError();
    });
  });
}

cudaError_t fill(elem type, const void* value, void* y, int64_t n,
                 cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  return dispatch(type, [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    fill_kernel<T><<<blocks_for(n), threads, 0, stream>>>(
      *static_cast<const T*>(value), static_cast<T*>(y), n);
    return cudaGetLastError();
  });
}

} // namespace actorflow::ops::gpu
