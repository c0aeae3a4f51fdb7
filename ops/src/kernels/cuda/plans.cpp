#include "plans.hpp"

#include <algorithm>

#include "../common/checks.hpp"

namespace actorflow::ops::gpu {

strided_copy transpose_copy(const core::shape& x,
                            const std::vector<int64_t>& perm) {
  strided_copy c;
  auto in = common::strides_of(x);
  for (auto p : perm) {
    c.dims.push_back(x.dim(static_cast<int>(p)));
    c.from.push_back(in[static_cast<size_t>(p)]);
  }
  c.to = common::strides_of(core::shape{c.dims});
  return c;
}

strided_copy tile_copy(const core::shape& x,
                       const std::vector<int64_t>& multiples) {
  std::vector<int64_t> out_dims;
  for (int d = 0; d < x.rank(); ++d)
    out_dims.push_back(x.dim(d) * multiples[static_cast<size_t>(d)]);
  auto in = common::strides_of(x);
  auto out = common::strides_of(core::shape{out_dims});
  strided_copy c;
  auto add = [&c](int64_t n, int64_t from, int64_t to) {
    if (n == 1)
      return;
    c.dims.push_back(n);
    c.from.push_back(from);
    c.to.push_back(to);
  };
  for (size_t d = 0; d < static_cast<size_t>(x.rank()); ++d) {
    auto n = x.dim(static_cast<int>(d));
    add(multiples[d], 0, n * out[d]);
    add(n, in[d], out[d]);
  }
  return c;
}

strided_copy hwio_to_ohwi(const core::shape& f) {
  auto kh = f.dim(0), kw = f.dim(1), ci = f.dim(2);
  // Walk the source's (h, w, i, o) order; o steps by a whole filter.
  return {f.dims(), common::strides_of(f), {kw * ci, ci, 1, kh * kw * ci}};
}

strided_copy ohwi_to_hwio(const core::shape& f) {
  auto co = f.dim(0), kw = f.dim(2), ci = f.dim(3);
  return {f.dims(), common::strides_of(f), {1, kw * ci * co, ci * co, co}};
}

strided_copy into_padded(const core::shape& x, const core::shape& padded) {
  return {x.dims(), common::strides_of(x), common::strides_of(padded)};
}

strided_copy out_of_padded(const core::shape& padded, const core::shape& x) {
  return {x.dims(), common::strides_of(padded), common::strides_of(x)};
}

core::status to_box(const strided_copy& copy, box_index* out) {
  if (copy.dims.size() > static_cast<size_t>(max_rank))
    return core::unimplemented_error("a copy of ", copy.dims.size(),
                                     " dimensions on a GPU (at most ", max_rank,
                                     ")");
  box_index box;
  box.rank = static_cast<int>(copy.dims.size());
  for (size_t d = 0; d < copy.dims.size(); ++d) {
    box.dims[d] = copy.dims[d];
    box.src_strides[d] = copy.from[d];
    box.dst_strides[d] = copy.to[d];
  }
  *out = box;
  return core::status::ok();
}

core::status plan_pool(const common::window_attrs& attrs, const core::shape& x,
                       pool_geometry* out) {
  if (x.rank() != 4)
    return core::invalid_argument_error(
      "pooling needs a rank-4 input (NHWC), got ", x.to_string());
  auto h = common::plan_window(x.dim(1), attrs.ksize[1], attrs.strides[1], 1,
                               attrs.same);
  auto w = common::plan_window(x.dim(2), attrs.ksize[2], attrs.strides[2], 1,
                               attrs.same);
  *out = {x.dim(0), h.in, w.in,     x.dim(3), h.out, w.out,
          h.k,      w.k,  h.stride, w.stride, h.pad, w.pad};
  return core::status::ok();
}

namespace {

/// The zeros to append after the image along a dimension: the padding
/// after it beyond the padding before it.
int64_t extra_after(const common::window& win) {
  auto after = (win.out - 1) * win.stride + (win.k - 1) * win.dilation + 1
               - win.in - win.pad;
  return win.out > 0 && after > win.pad ? after - win.pad : 0;
}

} // namespace

core::status plan_conv(const common::window_attrs& attrs, const core::shape& x,
                       const core::shape& f, conv_geometry* out) {
  if (x.rank() != 4 || f.rank() != 4)
    return core::invalid_argument_error(
      "Conv2D needs a rank-4 input (NHWC) and filter (HWIO), got ",
      x.to_string(), " and ", f.to_string());
  if (f.dim(2) > 0 && f.dim(2) != x.dim(3) && x.dim(3) % f.dim(2) == 0)
    return core::unimplemented_error(
      "grouped Conv2D (", x.dim(3), " input channels, a filter of ", f.dim(2),
      ") has no GPU kernel yet; place the node on the CPU");
  if (f.dim(2) != x.dim(3))
    return core::invalid_argument_error("Conv2D input has ", x.dim(3),
                                        " channels but the filter expects ",
                                        f.dim(2));
  conv_geometry g;
  g.batch = x.dim(0);
  g.cin = x.dim(3);
  g.cout = f.dim(3);
  g.h = common::plan_window(x.dim(1), f.dim(0), attrs.strides[1],
                            attrs.dilations[1], attrs.same);
  g.w = common::plan_window(x.dim(2), f.dim(1), attrs.strides[2],
                            attrs.dilations[2], attrs.same);
  g.extra_h = extra_after(g.h);
  g.extra_w = extra_after(g.w);
  *out = g;
  return core::status::ok();
}

reduce_plan plan_reduce(int64_t outer, int64_t mid, int64_t inner) {
  // Blocks enough to keep every multiprocessor busy; no slice of fewer
  // than min_rows rows, which would save less than the second launch costs.
  constexpr int64_t target_blocks = 1024;
  constexpr int64_t min_rows = 128;
  constexpr int64_t max_grid = 65535; // gridDim.y and gridDim.z
  reduce_plan p;
  p.outer = outer;
  p.mid = mid;
  p.inner = inner;
  if (inner <= 1 || mid < 64 || outer > max_grid)
    return p;
  p.tiles = (inner + 31) / 32;
  auto most = mid / min_rows; // slices of min_rows rows or more
  auto chunks = target_blocks / (p.tiles * outer);
  chunks = std::max<int64_t>(1, std::min({chunks, most, max_grid}));
  p.rows_per_chunk = (mid + chunks - 1) / chunks;
  p.chunks = (mid + p.rows_per_chunk - 1) / p.rows_per_chunk;
  return p;
}

int64_t cudnn_output_size(const common::window& win, int64_t extra) {
  auto effective = (win.k - 1) * win.dilation + 1;
  return (win.in + extra + 2 * win.pad - effective) / win.stride + 1;
}

} // namespace actorflow::ops::gpu
