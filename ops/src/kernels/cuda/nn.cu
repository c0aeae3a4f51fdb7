// Reductions (CUB's block reduction), BiasAdd, softmax, the cross-entropy
// losses and the optimizers' updates.

#include <cfloat>

#include <cub/block/block_reduce.cuh>

#include "grid.cuh"
#include "launch.hpp"

namespace actorflow::ops::gpu {

namespace {

template <class T>
struct reducer {
  reduce_fn fn;
  __device__ T identity() const {
    switch (fn) {
      case reduce_fn::max: return -std::numeric_limits<T>::infinity();
      case reduce_fn::min: return std::numeric_limits<T>::infinity();
      case reduce_fn::prod: return T(1);
      default: return T(0);
    }
  }
  __device__ T operator()(T a, T b) const {
    switch (fn) {
      case reduce_fn::max: return a > b ? a : b;
      case reduce_fn::min: return a < b ? a : b;
      case reduce_fn::prod: return a * b;
      default: return a + b;
    }
  }
};

/// One block per output when the reduced elements are contiguous
/// (inner == 1): the block's threads stride over the row, then CUB sums.
template <class T>
__global__ void reduce_rows(reduce_fn fn, const T* x, T* y, int64_t mid) {
  using block_reduce = cub::BlockReduce<T, threads>;
  __shared__ typename block_reduce::TempStorage tmp;
  reducer<T> r{fn};
  const T* row = x + blockIdx.x * mid;
  T acc = r.identity();
  for (int64_t i = threadIdx.x; i < mid; i += threads)
    acc = r(acc, row[i]);
  T total = block_reduce(tmp).Reduce(acc, r);
  if (threadIdx.x == 0)
    y[blockIdx.x] = fn == reduce_fn::mean ? total / T(mid) : total;
}

/// One thread per output where nothing else fits (short columns, or more
/// outer indices than a grid has): neighbouring threads read neighbouring
/// columns.
template <class T>
__global__ void reduce_columns(reduce_fn fn, const T* x, T* y, int64_t outer,
                               int64_t mid, int64_t inner) {
  reducer<T> r{fn};
  for (int64_t o = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
       o < outer * inner; o += int64_t{blockDim.x} * gridDim.x) {
    auto a = o / inner;
    auto b = o % inner;
    const T* p = x + a * mid * inner + b;
    T acc = r.identity();
    for (int64_t k = 0; k < mid; ++k)
      acc = r(acc, p[k * inner]);
    y[o] = fn == reduce_fn::mean ? acc / T(mid) : acc;
  }
}

/// The rows of a block of `reduce_tiles`.
inline constexpr int tile_rows = 8;

/// Long columns: block (x: column tile, y: slice of rows, z: outer index)
/// of 32 x 8 threads; each thread reduces every eighth row of its slice in
/// one column (a warp reads 32 neighbouring elements of a row), then the
/// block's eight partial results per column are combined in order. Writes
/// y[z][slice][column]: the result where there is one slice, else a
/// partial row for the second pass. `divisor` > 0 divides the result
/// (a mean's last pass).
template <class T>
__global__ void reduce_tiles(reduce_fn fn, const T* x, T* y, int64_t mid,
                             int64_t inner, int64_t rows_per_chunk,
                             int64_t divisor) {
  __shared__ T part[tile_rows][33];
  reducer<T> r{fn};
  int64_t col = blockIdx.x * int64_t{32} + threadIdx.x;
  int64_t begin = blockIdx.y * rows_per_chunk;
  int64_t end = begin + rows_per_chunk < mid ? begin + rows_per_chunk : mid;
  const T* in = x + blockIdx.z * mid * inner;
  T acc = r.identity();
  if (col < inner)
    for (int64_t k = begin + threadIdx.y; k < end; k += tile_rows)
      acc = r(acc, in[k * inner + col]);
  part[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y != 0 || col >= inner)
    return;
  for (int i = 1; i < tile_rows; ++i)
    acc = r(acc, part[i][threadIdx.x]);
  auto o = (blockIdx.z * int64_t{gridDim.y} + blockIdx.y) * inner + col;
  y[o] = divisor > 0 ? acc / T(divisor) : acc;
}

template <class T>
cudaError_t reduce_typed(reduce_fn fn, const void* x, void* y,
                         const reduce_plan& p, void* partials,
                         cudaStream_t stream) {
  auto* in = static_cast<const T*>(x);
  auto* out = static_cast<T*>(y);
  if (p.outer * p.inner == 0)
    return cudaSuccess;
  if (p.tiles > 0) {
    dim3 block{32, tile_rows};
    auto grid = [&](int64_t chunks) {
      return dim3{static_cast<unsigned>(p.tiles), static_cast<unsigned>(chunks),
                  static_cast<unsigned>(p.outer)};
    };
    int64_t divisor = fn == reduce_fn::mean ? p.mid : 0;
    if (p.chunks == 1) {
      reduce_tiles<T><<<grid(1), block, 0, stream>>>(
        fn, in, out, p.mid, p.inner, p.rows_per_chunk, divisor);
      return cudaGetLastError();
    }
    auto* part = static_cast<T*>(partials);
    reduce_tiles<T><<<grid(p.chunks), block, 0, stream>>>(
      fn, in, part, p.mid, p.inner, p.rows_per_chunk, 0);
    // The partial rows, [outer, chunks, inner], reduced in one slice.
    reduce_tiles<T><<<grid(1), block, 0, stream>>>(fn, part, out, p.chunks,
                                                   p.inner, p.chunks, divisor);
  } else if (p.inner == 1 && p.mid >= 256 && p.outer < (int64_t{1} << 31)) {
    reduce_rows<T><<<static_cast<unsigned>(p.outer), threads, 0, stream>>>(
      fn, in, out, p.mid);
  } else {
    reduce_columns<T><<<blocks_for(p.outer * p.inner), threads, 0, stream>>>(
      fn, in, out, p.outer, p.mid, p.inner);
  }
  return cudaGetLastError();
}

template <class T>
__global__ void bias_add_kernel(const T* x, const T* bias, T* y, int64_t n,
                                int64_t cols, bool relu) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    T v = x[i] + bias[i % cols];
    y[i] = relu && v < T(0) ? T(0) : v;
  }
}

/// One block per row: the row's max, then the sum of exponentials.
template <class T>
__device__ void row_stats(const T* row, int64_t cols, T* max_out, T* sum_out) {
  using block_reduce = cub::BlockReduce<T, threads>;
  __shared__ typename block_reduce::TempStorage tmp;
  __shared__ T shared_max;
  __shared__ T shared_sum;
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t i = threadIdx.x; i < cols; i += threads)
    m = row[i] > m ? row[i] : m;
  T mx = block_reduce(tmp).Reduce(m, [](T a, T b) { return a > b ? a : b; });
  if (threadIdx.x == 0)
    shared_max = mx;
  __syncthreads();
  T s = 0;
  for (int64_t i = threadIdx.x; i < cols; i += threads)
    s += exp(row[i] - shared_max);
  T sum = block_reduce(tmp).Sum(s);
  if (threadIdx.x == 0)
    shared_sum = sum;
  __syncthreads();
  *max_out = shared_max;
  *sum_out = shared_sum;
}

template <class T>
__global__ void softmax_kernel(const T* logits, T* y, int64_t cols, bool log) {
  const T* row = logits + blockIdx.x * cols;
  T* out = y + blockIdx.x * cols;
  T mx;
  T sum;
  row_stats(row, cols, &mx, &sum);
  T log_sum = std::log(sum);
  for (int64_t i = threadIdx.x; i < cols; i += threads)
    out[i] = log ? row[i] - mx - log_sum : exp(row[i] - mx) / sum;
}

template <class T, class L>
__global__ void xent_kernel(const T* logits, const L* labels, bool sparse,
                            T* loss, T* backprop, int64_t cols) {
  using block_reduce = cub::BlockReduce<T, threads>;
  __shared__ typename block_reduce::TempStorage tmp;
  auto r = blockIdx.x;
  const T* row = logits + r * cols;
  T* grad = backprop + r * cols;
  T mx;
  T sum;
  row_stats(row, cols, &mx, &sum);
  T log_sum = std::log(sum);
  int64_t label = 0;
  bool bad = false;
  if (sparse) {
    label = static_cast<int64_t>(labels[r]);
    bad = label < 0 || label >= cols;
  }
  T l = 0;
  for (int64_t i = threadIdx.x; i < cols; i += threads) {
    T target
      = sparse ? T(i == label ? 1 : 0) : static_cast<T>(labels[r * cols + i]);
    T log_p = row[i] - mx - log_sum;
    grad[i] = bad ? std::numeric_limits<T>::quiet_NaN() : exp(log_p) - target;
    l -= target * log_p;
  }
  T total = block_reduce(tmp).Sum(l);
  if (threadIdx.x == 0)
    loss[r] = bad ? std::numeric_limits<T>::quiet_NaN() : total;
}

template <class T>
__global__ void gradient_descent_kernel(T* var, T alpha, const T* delta,
                                        int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x)
    var[i] -= alpha * delta[i];
}

template <class T>
__global__ void momentum_kernel(T* var, T* accum, T lr, const T* grad,
                                T momentum, bool nesterov, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    accum[i] = accum[i] * momentum + grad[i];
    var[i]
      -= nesterov ? grad[i] * lr + accum[i] * momentum * lr : lr * accum[i];
  }
}

template <class T>
__global__ void adam_kernel(T* var, T* m, T* v, T alpha, T beta1, T beta2,
                            T epsilon, const T* grad, bool nesterov,
                            int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    auto g = grad[i];
    m[i] += (g - m[i]) * (T(1) - beta1);
    v[i] += (g * g - v[i]) * (T(1) - beta2);
    auto step = nesterov ? (m[i] * beta1 + (T(1) - beta1) * g) : m[i];
    var[i] -= step * alpha / (sqrt(v[i]) + epsilon);
  }
}

} // namespace

cudaError_t reduce(reduce_fn fn, elem type, const void* x, void* y,
                   const reduce_plan& plan, void* partials,
                   cudaStream_t stream) {
  if (type == elem::f32)
    return reduce_typed<float>(fn, x, y, plan, partials, stream);
  if (type == elem::f64)
    return reduce_typed<double>(fn, x, y, plan, partials, stream);
  return cudaErrorInvalidValue;
}

cudaError_t bias_add(elem type, const void* x, const void* bias, void* y,
                     int64_t rows, int64_t cols, bool relu,
                     cudaStream_t stream) {
  auto n = rows * cols;
  if (n == 0)
    return cudaSuccess;
  if (type == elem::f32)
    bias_add_kernel<float><<<blocks_for(n), threads, 0, stream>>>(
      static_cast<const float*>(x), static_cast<const float*>(bias),
      static_cast<float*>(y), n, cols, relu);
  else if (type == elem::f64)
    bias_add_kernel<double><<<blocks_for(n), threads, 0, stream>>>(
      static_cast<const double*>(x), static_cast<const double*>(bias),
      static_cast<double*>(y), n, cols, relu);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

cudaError_t softmax(elem type, const void* logits, void* y, int64_t rows,
                    int64_t cols, bool log, cudaStream_t stream) {
  if (rows == 0 || cols == 0)
    return cudaSuccess;
  if (type == elem::f32)
    softmax_kernel<float><<<static_cast<unsigned>(rows), threads, 0, stream>>>(
      static_cast<const float*>(logits), static_cast<float*>(y), cols, log);
  else if (type == elem::f64)
    softmax_kernel<double><<<static_cast<unsigned>(rows), threads, 0, stream>>>(
      static_cast<const double*>(logits), static_cast<double*>(y), cols, log);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

namespace {

template <class T>
cudaError_t xent_typed(const void* logits, const void* labels, elem label_type,
                       bool sparse, void* loss, void* backprop, int64_t rows,
                       int64_t cols, cudaStream_t stream) {
  auto grid = static_cast<unsigned>(rows);
  auto* x = static_cast<const T*>(logits);
  auto* l = static_cast<T*>(loss);
  auto* g = static_cast<T*>(backprop);
  if (!sparse)
    xent_kernel<T, T><<<grid, threads, 0, stream>>>(
      x, static_cast<const T*>(labels), false, l, g, cols);
  else if (label_type == elem::i64)
    xent_kernel<T, int64_t><<<grid, threads, 0, stream>>>(
      x, static_cast<const int64_t*>(labels), true, l, g, cols);
  else
    xent_kernel<T, int32_t><<<grid, threads, 0, stream>>>(
      x, static_cast<const int32_t*>(labels), sparse, l, g, cols);
  return cudaGetLastError();
}

} // namespace

cudaError_t softmax_xent(elem type, const void* logits, const void* labels,
                         elem label_type, bool sparse, void* loss,
                         void* backprop, int64_t rows, int64_t cols,
                         cudaStream_t stream) {
  if (rows == 0)
    return cudaSuccess;
  if (type == elem::f32)
    return xent_typed<float>(logits, labels, label_type, sparse, loss, backprop,
                             rows, cols, stream);
  if (type == elem::f64)
    return xent_typed<double>(logits, labels, label_type, sparse, loss,
                              backprop, rows, cols, stream);
  return cudaErrorInvalidValue;
}

cudaError_t apply_gradient_descent(elem type, void* var, double alpha,
                                   const void* delta, int64_t n,
                                   cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  if (type == elem::f32)
    gradient_descent_kernel<float><<<blocks_for(n), threads, 0, stream>>>(
      static_cast<float*>(var), static_cast<float>(alpha),
      static_cast<const float*>(delta), n);
  else if (type == elem::f64)
    gradient_descent_kernel<double><<<blocks_for(n), threads, 0, stream>>>(
      static_cast<double*>(var), alpha, static_cast<const double*>(delta), n);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

cudaError_t apply_momentum(elem type, void* var, void* accum, double lr,
                           const void* grad, double momentum, bool nesterov,
                           int64_t n, cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  if (type == elem::f32)
    momentum_kernel<float><<<blocks_for(n), threads, 0, stream>>>(
      static_cast<float*>(var), static_cast<float*>(accum),
      static_cast<float>(lr), static_cast<const float*>(grad),
      static_cast<float>(momentum), nesterov, n);
  else if (type == elem::f64)
    momentum_kernel<double><<<blocks_for(n), threads, 0, stream>>>(
      static_cast<double*>(var), static_cast<double*>(accum), lr,
      static_cast<const double*>(grad), momentum, nesterov, n);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

cudaError_t apply_adam(elem type, void* var, void* m, void* v,
                       double beta1_power, double beta2_power, double lr,
                       double beta1, double beta2, double epsilon,
                       const void* grad, bool nesterov, int64_t n,
                       cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  // TensorFlow's step size: lr * sqrt(1 - beta2^t) / (1 - beta1^t).
  double alpha = lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
  if (type == elem::f32)
    adam_kernel<float><<<blocks_for(n), threads, 0, stream>>>(
      static_cast<float*>(var), static_cast<float*>(m), static_cast<float*>(v),
      static_cast<float>(alpha), static_cast<float>(beta1),
      static_cast<float>(beta2), static_cast<float>(epsilon),
      static_cast<const float*>(grad), nesterov, n);
  else if (type == elem::f64)
    adam_kernel<double><<<blocks_for(n), threads, 0, stream>>>(
      static_cast<double*>(var), static_cast<double*>(m),
      static_cast<double*>(v), alpha, beta1, beta2, epsilon,
      static_cast<const double*>(grad), nesterov, n);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

} // namespace actorflow::ops::gpu
