// Kernels that move elements: Transpose, Slice, StridedSlice, Reverse,
// Tile, Pad. Each computes a box of elements with strides in the input and
// the output and hands it to `copy_box`.

#include "kernels.hpp"

#include <cstring>

#include "actorflow/ops/array_shapes.hpp"
#include "element_copy.hpp"

namespace actorflow::ops::cpu {

namespace {

/// Allocates output 0 and copies a box from the input into it.
void emit_box(kernel_context& ctx, const core::shape& out_shape,
              int64_t src_base, const std::vector<int64_t>& src_strides,
              const std::vector<int64_t>& dims) {
  core::tensor* out = nullptr;
  ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
  copy_box(ctx.input(0), src_base, src_strides, *out, 0,
           strides_of(core::shape{dims}), dims);
}

class transpose_kernel : public basic_kernel {
public:
  explicit transpose_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto perm = read_ints(ctx.input(1));
    core::shape out;
    ACTORFLOW_OP_REQUIRES_OK(ctx, transpose_shape(x.shape(), perm, &out));
    auto in_strides = strides_of(x.shape());
    std::vector<int64_t> strides;
    for (auto p : perm)
      strides.push_back(in_strides[static_cast<size_t>(p)]);
    emit_box(ctx, out, 0, strides, out.dims());
  }
};

class slice_kernel : public basic_kernel {
public:
  explicit slice_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto begin = read_ints(ctx.input(1));
    auto size = read_ints(ctx.input(2));
    int rank = x.shape().rank();
    ACTORFLOW_OP_REQUIRES(
      ctx,
      begin.size() == static_cast<size_t>(rank)
        && size.size() == static_cast<size_t>(rank),
      core::invalid_argument_error(
        "Slice needs begin and size with one entry per dimension of ",
        x.shape().to_string()));
    auto strides = strides_of(x.shape());
    int64_t base = 0;
    for (size_t d = 0; d < begin.size(); ++d) {
      auto dim = x.shape().dim(static_cast<int>(d));
      if (size[d] == -1)
        size[d] = dim - begin[d];
      ACTORFLOW_OP_REQUIRES(
        ctx, begin[d] >= 0 && size[d] >= 0 && begin[d] + size[d] <= dim,
        core::invalid_argument_error("Slice of dimension ", d, " (size ", dim,
                                     ") from ", begin[d], " of size ", size[d],
                                     " is out of range"));
      base += begin[d] * strides[d];
    }
    emit_box(ctx, core::shape{size}, base, strides, size);
  }
};

/// StridedSlice's mask attrs.
strided_slice_masks read_masks(const kernel_construction& ctx) {
  return {ctx.attr_or("begin_mask", int64_t{0}),
          ctx.attr_or("end_mask", int64_t{0}),
          ctx.attr_or("ellipsis_mask", int64_t{0}),
          ctx.attr_or("new_axis_mask", int64_t{0}),
          ctx.attr_or("shrink_axis_mask", int64_t{0})};
}

/// Where a strided slice of a tensor of shape `in` reads: the flat offset
/// of its first element and the flat step along each dimension.
void slice_box(const strided_slice_plan& plan, const core::shape& in,
               int64_t* base, std::vector<int64_t>* strides) {
  auto in_strides = strides_of(in);
  for (size_t d = 0; d < plan.begin.size(); ++d) {
    *base += plan.begin[d] * in_strides[d];
    strides->push_back(plan.step[d] * in_strides[d]);
  }
}

class strided_slice_kernel : public basic_kernel {
public:
  explicit strided_slice_kernel(kernel_construction& ctx) {
    masks_ = read_masks(ctx);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    strided_slice_plan plan;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, plan_strided_slice(x.shape(), read_ints(ctx.input(1)),
                              read_ints(ctx.input(2)), read_ints(ctx.input(3)),
                              masks_, &plan));
    int64_t base = 0;
    std::vector<int64_t> strides;
    slice_box(plan, x.shape(), &base, &strides);
    // The box is the input's dimensions; the output shape only adds or
    // drops dimensions of size 1, so the element order is the same.
    emit_box(ctx, plan.out, base, strides, plan.count);
  }

private:
  strided_slice_masks masks_;
};

/// StridedSliceGrad: zeros of the input's shape with dy copied into the
/// positions StridedSlice reads.
class strided_slice_grad_kernel : public basic_kernel {
public:
  explicit strided_slice_grad_kernel(kernel_construction& ctx) {
    masks_ = read_masks(ctx);
  }

  void compute(kernel_context& ctx) override {
    core::shape in{read_ints(ctx.input(0))};
    const auto& dy = ctx.input(4);
    strided_slice_plan plan;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      plan_strided_slice(in, read_ints(ctx.input(1)), read_ints(ctx.input(2)),
                         read_ints(ctx.input(3)), masks_, &plan));
    ACTORFLOW_OP_REQUIRES(
      ctx, dy.num_elements() == core::shape{plan.count}.num_elements(),
      core::invalid_argument_error("dy has shape ", dy.shape().to_string(),
                                   ", the slice ", plan.out.to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, in, &out));
    if (out->bytes() > 0)
      std::memset(out->raw_mutable_data(), 0, out->bytes());
    int64_t base = 0;
    std::vector<int64_t> strides;
    slice_box(plan, in, &base, &strides);
    copy_box(dy, 0, strides_of(core::shape{plan.count}), *out, base, strides,
             plan.count);
  }

private:
  strided_slice_masks masks_;
};

/// ReverseV2 (axes as ints) and Reverse (one bool per dimension).
template <bool ByMask>
class reverse_kernel : public basic_kernel {
public:
  explicit reverse_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    int rank = x.shape().rank();
    std::vector<bool> flip(static_cast<size_t>(rank), false);
    const auto& axes = ctx.input(1);
    if constexpr (ByMask) {
      ACTORFLOW_OP_REQUIRES(
        ctx, axes.num_elements() == rank,
        core::invalid_argument_error("Reverse needs one bool per dimension of ",
                                     x.shape().to_string()));
      for (int d = 0; d < rank; ++d)
        flip[static_cast<size_t>(d)] = axes.data<bool>()[d];
    } else {
      for (auto axis : read_ints(axes)) {
        int a = 0;
        ACTORFLOW_OP_REQUIRES_OK(ctx, canonical_axis(axis, rank, &a));
        flip[static_cast<size_t>(a)] = true;
      }
    }
    auto strides = strides_of(x.shape());
    int64_t base = 0;
    for (int d = 0; d < rank; ++d) {
      auto du = static_cast<size_t>(d);
      if (flip[du]) {
        base += (x.shape().dim(d) - 1) * strides[du];
        strides[du] = -strides[du];
      }
    }
    emit_box(ctx, x.shape(), x.num_elements() == 0 ? 0 : base, strides,
             x.shape().dims());
  }
};

/// ReverseSequence: for each index b along `batch_dim`, the first
/// seq_lengths[b] slices along `seq_dim` reversed, the rest as they are;
/// two box copies per b.
class reverse_sequence_kernel : public basic_kernel {
public:
  explicit reverse_sequence_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("seq_dim", &seq_dim_);
    batch_dim_ = ctx.attr_or("batch_dim", int64_t{0});
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto lengths = read_ints(ctx.input(1));
    int rank = x.shape().rank();
    ACTORFLOW_OP_REQUIRES(ctx,
                          seq_dim_ >= 0 && seq_dim_ < rank && batch_dim_ >= 0
                            && batch_dim_ < rank && seq_dim_ != batch_dim_,
                          core::invalid_argument_error(
                            "seq_dim ", seq_dim_, " and batch_dim ", batch_dim_,
                            " must be two dimensions of an input of "
                            "shape ",
                            x.shape().to_string()));
    auto sd = static_cast<int>(seq_dim_), bd = static_cast<int>(batch_dim_);
    auto batch = x.shape().dim(bd), steps = x.shape().dim(sd);
    ACTORFLOW_OP_REQUIRES(
      ctx,
      ctx.input(1).shape().rank() == 1
        && static_cast<int64_t>(lengths.size()) == batch,
      core::invalid_argument_error("seq_lengths must be a vector of ", batch,
                                   " lengths (the batch dimension), got ",
                                   ctx.input(1).shape().to_string()));
    for (auto n : lengths)
      ACTORFLOW_OP_REQUIRES(
        ctx, n >= 0 && n <= steps,
        core::invalid_argument_error("a sequence length of ", n, " in ", steps,
                                     " steps"));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, x.shape(), &out));
    auto strides = strides_of(x.shape());
    auto bs = strides[static_cast<size_t>(bd)];
    auto ss = strides[static_cast<size_t>(sd)];
    auto dims = x.shape().dims();
    dims[static_cast<size_t>(bd)] = 1;
    for (int64_t b = 0; b < batch; ++b) {
      auto n = lengths[static_cast<size_t>(b)];
      auto reversed = strides;
      reversed[static_cast<size_t>(sd)] = -ss;
      dims[static_cast<size_t>(sd)] = n;
      if (n > 0)
        copy_box(x, b * bs + (n - 1) * ss, reversed, *out, b * bs, strides,
                 dims);
      dims[static_cast<size_t>(sd)] = steps - n;
      if (steps > n)
        copy_box(x, b * bs + n * ss, strides, *out, b * bs + n * ss, strides,
                 dims);
    }
  }

private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

/// Tile: the input repeated; one box copy per repetition.
class tile_kernel : public basic_kernel {
public:
  explicit tile_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto multiples = read_ints(ctx.input(1));
    int rank = x.shape().rank();
    ACTORFLOW_OP_REQUIRES(ctx, multiples.size() == static_cast<size_t>(rank),
                          core::invalid_argument_error(
                            "Tile needs one multiple per dimension of ",
                            x.shape().to_string(), ", got ", multiples.size()));
    std::vector<int64_t> dims;
    int64_t copies = 1;
    for (int d = 0; d < rank; ++d) {
      auto m = multiples[static_cast<size_t>(d)];
      ACTORFLOW_OP_REQUIRES(
        ctx, m >= 0,
        core::invalid_argument_error("Tile multiples must be non-negative"));
      dims.push_back(x.shape().dim(d) * m);
      copies *= m;
    }
    core::shape out_shape{dims};
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0)
      return;
    // The output as [m0, d0, m1, d1, ...]: one box that reads the input
    // with stride 0 along each multiple (dimensions of size 1 left out,
    // so the innermost loop runs along a real one).
    auto in_strides = strides_of(x.shape());
    auto out_strides = strides_of(out_shape);
    std::vector<int64_t> box, src, dst;
    for (int d = 0; d < rank; ++d) {
      auto du = static_cast<size_t>(d);
      auto n = x.shape().dim(d);
      if (multiples[du] != 1) {
        box.push_back(multiples[du]);
        src.push_back(0);
        dst.push_back(n * out_strides[du]);
      }
      if (n != 1) {
        box.push_back(n);
        src.push_back(in_strides[du]);
        dst.push_back(out_strides[du]);
      }
    }
    copy_box(x, 0, src, *out, 0, dst, box);
  }
};

/// Pad and PadV2: the constant (0 or input 2) around a copy of the input.
class pad_kernel : public basic_kernel {
public:
  explicit pad_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& p = ctx.input(1);
    int rank = x.shape().rank();
    ACTORFLOW_OP_REQUIRES(
      ctx,
      p.shape() == core::shape({rank, 2})
        || (rank == 0 && p.num_elements() == 0),
      core::invalid_argument_error("Pad needs paddings of shape [", rank,
                                   ",2], got ", p.shape().to_string()));
    ACTORFLOW_OP_REQUIRES(
      ctx, ctx.num_inputs() < 3 || ctx.input(2).shape().rank() == 0,
      core::invalid_argument_error("PadV2 constant_values must be a scalar"));
    auto pads = read_ints(p);
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) {
      auto lo = pads[static_cast<size_t>(2 * d)];
      auto hi = pads[static_cast<size_t>(2 * d + 1)];
      ACTORFLOW_OP_REQUIRES(
        ctx, lo >= 0 && hi >= 0,
        core::invalid_argument_error("Pad needs non-negative paddings"));
      dims.push_back(x.shape().dim(d) + lo + hi);
    }
    core::shape out_shape{dims};
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    visit_storage(x.dtype(), [&](auto tag) {
      using U = decltype(tag);
      U fill{};
      if (ctx.num_inputs() == 3 && ctx.input(2).num_elements() == 1)
        fill = ctx.input(2).data<U>()[0];
      std::fill_n(out->mutable_data<U>(), out->num_elements(), fill);
    });
    auto out_strides = strides_of(out_shape);
    int64_t base = 0;
    for (int d = 0; d < rank; ++d)
      base += pads[static_cast<size_t>(2 * d)]
              * out_strides[static_cast<size_t>(d)];
    copy_box(x, 0, strides_of(x.shape()), *out, base, out_strides,
             x.shape().dims());
  }
};

} // namespace

void register_transform_kernels(kernel_registry& r) {
  r.add_any<transpose_kernel>("Transpose", device_type);
  r.add_any<slice_kernel>("Slice", device_type);
  r.add_any<strided_slice_kernel>("StridedSlice", device_type);
  r.add_any<strided_slice_grad_kernel>("StridedSliceGrad", device_type);
  r.add_any<reverse_kernel<false>>("ReverseV2", device_type);
  r.add_any<reverse_kernel<true>>("Reverse", device_type);
  r.add_any<reverse_sequence_kernel>("ReverseSequence", device_type);
  r.add_any<tile_kernel>("Tile", device_type);
  r.add_any<pad_kernel>("Pad", device_type);
  r.add_any<pad_kernel>("PadV2", device_type);
}

} // namespace actorflow::ops::cpu
