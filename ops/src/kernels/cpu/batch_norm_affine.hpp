#pragma once

// Internal: an inference batch norm as one multiply and add per channel.

#include <cmath>
#include <cstdint>

namespace actorflow::ops::cpu {

/// y = x * a[c] + b[c] for channel c: a = scale / sqrt(var + epsilon),
/// b = offset - mean * a (TensorFlow's CPU kernel). FusedBatchNorm's
/// kernel and _FusedConvBatchNorm's post-ops both take them from here, so
/// the two round alike.
template <class T>
void batch_norm_affine(int64_t channels, const T* scale, const T* offset,
                       const T* mean, const T* var, T epsilon, T* a, T* b) {
  for (int64_t c = 0; c < channels; ++c) {
    a[c] = scale[c] / std::sqrt(var[c] + epsilon);
    b[c] = offset[c] - mean[c] * a[c];
  }
}

} // namespace actorflow::ops::cpu
