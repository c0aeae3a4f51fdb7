#pragma once

// Internal: what the GPU kernels work out on the host before a launch --
// the strided copies of Transpose, Tile and the convolutions' layouts,
// and the geometry of poolings and convolutions -- as plain functions, so
// that tests check them on machines without a GPU
// (tests/gpu/plans_test.cpp).

#include <cstdint>
#include <vector>

#include "../common/window.hpp"
#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "launch.hpp"

namespace actorflow::ops::gpu {

/// A copy of the box `dims`, each element read at offset sum(index *
/// from) and written at sum(index * to) (offsets in elements).
struct strided_copy {
  std::vector<int64_t> dims;
  std::vector<int64_t> from;
  std::vector<int64_t> to;
};

/// Transpose of `x` by `perm` (checked by the caller).
strided_copy transpose_copy(const core::shape& x,
                            const std::vector<int64_t>& perm);

/// Tile of `x` by `multiples` (checked by the caller): output dimension d
/// is walked as the copy k < multiples[d] (read at stride 0) and the
/// element j < x.dim(d); dimensions of one element are left out.
strided_copy tile_copy(const core::shape& x,
                       const std::vector<int64_t>& multiples);

/// HWIO filters `f` into OHWI order (cuDNN's "NHWC" filters).
strided_copy hwio_to_ohwi(const core::shape& f);

/// OHWI filters `f` back into HWIO order.
strided_copy ohwi_to_hwio(const core::shape& f);

/// NHWC images `x` into the top-left corner of `padded` images (rows and
/// columns appended).
strided_copy into_padded(const core::shape& x, const core::shape& padded);

/// The top-left `x` of `padded` images.
strided_copy out_of_padded(const core::shape& padded, const core::shape& x);

/// `copy` as a launch's box; `unimplemented` beyond `max_rank` dimensions.
core::status to_box(const strided_copy& copy, box_index* out);

/// The pooling of NHWC images `x` under `attrs` (as the CPU plans it).
core::status plan_pool(const common::window_attrs& attrs, const core::shape& x,
                       pool_geometry* out);

/// A convolution's geometry as the CPU plans it, and what cuDNN needs to
/// compute the same: TensorFlow's SAME padding may put one row or column
/// more after the image than before it, and cuDNN pads both sides alike,
/// so the image gets that row or column of zeros appended.
struct conv_geometry {
  int64_t batch = 0;
  int64_t cin = 0;
  int64_t cout = 0;
  common::window h;
  common::window w;
  int64_t extra_h = 0; ///< Rows of zeros appended to the image.
  int64_t extra_w = 0; ///< Columns likewise.

  core::shape input() const {
    return {batch, h.in, w.in, cin};
  }

  /// The image cuDNN sees, with the appended zeros.
  core::shape padded() const {
    return {batch, h.in + extra_h, w.in + extra_w, cin};
  }

  core::shape filter() const {
    return {h.k, w.k, cin, cout};
  }

  core::shape output() const {
    return {batch, h.out, w.out, cout};
  }

  bool needs_padding() const {
    return extra_h > 0 || extra_w > 0;
  }

  /// Whether nothing is computed (an empty output, or sums over nothing).
  bool empty() const {
    return batch * h.out * w.out * cout == 0 || h.k * w.k * cin == 0;
  }
};

/// Plans the convolution of images `x` (NHWC) with filters `f` (HWIO).
core::status plan_conv(const common::window_attrs& attrs, const core::shape& x,
                       const core::shape& f, conv_geometry* out);

/// How to reduce [outer, mid, inner] over `mid` on the GPU: long columns
/// (inner > 1, mid >= 64) are cut into tiles of 32 columns and slices of
/// at least 128 rows, enough blocks to fill the GPU where the rows allow
/// (BiasAddGrad of an NHWC convolution is 32-64 columns of ~10^5 rows).
reduce_plan plan_reduce(int64_t outer, int64_t mid, int64_t inner);

/// The output size cuDNN computes along a dimension of `win` with the
/// appended `extra` (its formula: symmetric padding, floor division).
int64_t cudnn_output_size(const common::window& win, int64_t extra);

} // namespace actorflow::ops::gpu
