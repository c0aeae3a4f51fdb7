#pragma once

// Internal: float32 element-wise functions through oneDNN.

#include <cstdint>
#include <memory>

#include "actorflow/core/status.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::cpu {

/// y = f(x) over float32 arrays through oneDNN's eltwise primitive.
///
/// oneDNN compiles its eltwise kernels for the CPU it finds (AVX-512 where
/// there is one), while Eigen's vectorised exp, tanh and logistic are what
/// the build targets -- SSE2 in the portable build, where Eigen's exp has
/// no rounding instruction and takes 2.2 ns an element against oneDNN's
/// 0.34. A call costs ~3 us, so small arrays stay with Eigen
/// (`worth_it`). One object per kernel keeps its primitives, by length; a
/// large array is cut over the device's pool, each block run by oneDNN on
/// one OpenMP thread.
class onednn_eltwise {
public:
  /// The functions taken to oneDNN: exp, tanh and logistic within 2e-7
  /// relative of float64's; gelu_erf, 0.5 x (1 + erf(x / sqrt(2))),
  /// within 1.5e-7 max(1, |x|) absolute (TensorFlow's oneDNN build fuses
  /// Gelu into MatMul with the same kernel).
  enum class function { exp, tanh, logistic, gelu_erf };

  explicit onednn_eltwise(function f);

  ~onednn_eltwise();

  /// Whether `n` elements are worth a oneDNN call.
  static bool worth_it(int64_t n) noexcept {
    return n >= 2048;
  }

  /// y[i] = f(x[i]) for i < n; `y` may be `x`.
  core::status apply(kernel_context& ctx, const float* x, float* y, int64_t n);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace actorflow::ops::cpu
