#pragma once

// Internal: the windows of a convolution or pooling (common/window.hpp)
// and the CPU's work cut by images.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/window.hpp"
#include "kernels.hpp"
#include "parallel_split.hpp"

namespace actorflow::ops::cpu {

using common::plan_window;
using common::window;
using common::window_attrs;

/// Calls `f(b0, b1)` for blocks of images [b0, b1) covering the batch, over
/// the device's pool when the work (`elements` touched) is large enough.
template <class F>
void over_images(kernel_context& ctx, int64_t batch, int64_t elements, F f) {
  parallel_split split{&ctx, elements >= parallel_threshold};
  auto parts = static_cast<int>(std::min<int64_t>(split.threads(), batch));
  split.run(parts, [&](int part) {
    f(batch * part / parts, batch * (part + 1) / parts);
  });
}

} // namespace actorflow::ops::cpu
