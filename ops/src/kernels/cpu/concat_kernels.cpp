// Kernels that join or part tensors along an axis: ConcatV2, Concat,
// Split, SplitV, Pack, Unpack, GatherV2, Gather. Each sees a tensor as
// [outer, dim(axis), inner] and moves runs of `inner` elements.

#include "kernels.hpp"

#include "actorflow/ops/array_shapes.hpp"
#include "element_copy.hpp"

namespace actorflow::ops::cpu {

namespace {

/// The product of the dimensions of `s` in [from, to).
int64_t product(const core::shape& s, int from, int to) {
  int64_t n = 1;
  for (int d = from; d < to; ++d)
    n *= s.dim(d);
  return n;
}

/// Copies `parts` (each [outer, size_k * inner]) side by side into
/// `whole` ([outer, total * inner]), or the other way round with `split`.
/// The destinations are freshly allocated outputs, written through their
/// handles.
void join(const std::vector<core::tensor>& parts,
          const std::vector<int64_t>& sizes, const core::tensor& whole,
          int64_t outer, int64_t inner, bool split) {
  int64_t total = 0;
  for (auto s : sizes)
    total += s;
  int64_t offset = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    std::vector<int64_t> dims{outer, sizes[k] * inner};
    std::vector<int64_t> part_strides{sizes[k] * inner, 1};
    std::vector<int64_t> whole_strides{total * inner, 1};
    core::tensor dst = split ? parts[k] : whole;
    if (split)
      copy_box(whole, offset * inner, whole_strides, dst, 0, part_strides,
               dims);
    else
      copy_box(parts[k], 0, part_strides, dst, offset * inner, whole_strides,
               dims);
    offset += sizes[k];
  }
}

/// ConcatV2 (axis last) and Concat (axis first).
template <bool AxisFirst>
class concat_kernel : public basic_kernel {
public:
  explicit concat_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    auto n = ctx.num_inputs() - 1;
    size_t first = AxisFirst ? 1 : 0;
    int64_t axis = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_int(ctx.input(AxisFirst ? 0 : n), "axis", &axis));
    std::vector<core::tensor> parts;
    std::vector<core::shape> shapes;
    for (size_t i = first; i < first + n; ++i) {
      parts.push_back(ctx.input(i));
      shapes.push_back(ctx.input(i).shape());
    }
    core::shape out_shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, concat_shape(shapes, axis, &out_shape));
    int a = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, canonical_axis(axis, out_shape.rank(), &a));
    std::vector<int64_t> sizes;
    for (const auto& s : shapes)
      sizes.push_back(s.dim(a));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    join(parts, sizes, *out, product(out_shape, 0, a),
         product(out_shape, a + 1, out_shape.rank()), false);
  }
};

/// Split (equal parts, axis first) and SplitV (given sizes, one may be -1).
template <bool Sized>
class split_kernel : public basic_kernel {
public:
  explicit split_kernel(kernel_construction& ctx) {
    num_ = ctx.attr_or("num_split", int64_t{1});
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(Sized ? 0 : 1);
    int64_t axis = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_int(ctx.input(Sized ? 2 : 0), "split_dim", &axis));
    int a = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, canonical_axis(axis, x.shape().rank(), &a));
    auto size = x.shape().dim(a);
    std::vector<int64_t> sizes;
    if constexpr (Sized) {
      sizes = read_ints(ctx.input(1));
      ACTORFLOW_OP_REQUIRES_OK(ctx, resolve_sizes(size, &sizes));
    } else {
      ACTORFLOW_OP_REQUIRES(
        ctx, size % num_ == 0,
        core::invalid_argument_error("cannot split dimension ", a, " of size ",
                                     size, " into ", num_, " equal parts"));
      sizes.assign(static_cast<size_t>(num_), size / num_);
    }
    std::vector<core::tensor> parts;
    for (size_t k = 0; k < sizes.size(); ++k) {
      auto dims = x.shape().dims();
      dims[static_cast<size_t>(a)] = sizes[k];
      core::tensor* out = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, ctx.allocate_output(k, core::shape{std::move(dims)}, &out));
      parts.push_back(*out);
    }
    join(parts, sizes, x, product(x.shape(), 0, a),
         product(x.shape(), a + 1, x.shape().rank()), true);
  }

private:
  core::status resolve_sizes(int64_t size, std::vector<int64_t>* sizes) const {
    if (static_cast<int64_t>(sizes->size()) != num_)
      return core::invalid_argument_error("SplitV got ", sizes->size(),
                                          " sizes for ", num_, " outputs");
    int64_t known = 0;
    int open = -1;
    for (size_t i = 0; i < sizes->size(); ++i) {
      auto s = (*sizes)[i];
      if (s == -1 && open < 0)
        open = static_cast<int>(i);
      else if (s < 0)
        return core::invalid_argument_error(
          "SplitV sizes must be non-negative with at most one -1");
      else
        known += s;
    }
    if (open >= 0 && known <= size)
      (*sizes)[static_cast<size_t>(open)] = size - known;
    else if (known != size)
      return core::invalid_argument_error("SplitV sizes add up to ", known,
                                          ", not to the dimension's ", size);
    return core::status::ok();
  }

  int64_t num_ = 1;
};

/// Pack: N tensors of one shape stacked along a new axis.
class pack_kernel : public basic_kernel {
public:
  explicit pack_kernel(kernel_construction& ctx) {
    axis_ = ctx.attr_or("axis", int64_t{0});
  }

  void compute(kernel_context& ctx) override {
    const auto& s = ctx.input(0).shape();
    std::vector<core::tensor> parts;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      ACTORFLOW_OP_REQUIRES(ctx, ctx.input(i).shape() == s,
                            core::invalid_argument_error(
                              "Pack needs inputs of one shape; input 0 is ",
                              s.to_string(), ", input ", i, " is ",
                              ctx.input(i).shape().to_string()));
      parts.push_back(ctx.input(i));
    }
    int a = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, canonical_axis(axis_, s.rank() + 1, &a));
    auto dims = s.dims();
    dims.insert(dims.begin() + a, static_cast<int64_t>(parts.size()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{std::move(dims)}, &out));
    join(parts, std::vector<int64_t>(parts.size(), 1), *out, product(s, 0, a),
         product(s, a, s.rank()), false);
  }

private:
  int64_t axis_;
};

/// Unpack: the slices of a tensor along an axis, that axis removed.
class unpack_kernel : public basic_kernel {
public:
  explicit unpack_kernel(kernel_construction& ctx) {
    axis_ = ctx.attr_or("axis", int64_t{0});
    num_ = ctx.attr_or("num", int64_t{1});
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    int a = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, canonical_axis(axis_, x.shape().rank(), &a));
    ACTORFLOW_OP_REQUIRES(ctx, x.shape().dim(a) == num_,
                          core::invalid_argument_error(
                            "cannot unpack dimension ", a, " of ",
                            x.shape().to_string(), " into ", num_, " tensors"));
    auto dims = x.shape().dims();
    dims.erase(dims.begin() + a);
    std::vector<core::tensor> parts;
    for (int64_t k = 0; k < num_; ++k) {
      core::tensor* out = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx,
        ctx.allocate_output(static_cast<size_t>(k), core::shape{dims}, &out));
      parts.push_back(*out);
    }
    join(parts, std::vector<int64_t>(parts.size(), 1), x,
         product(x.shape(), 0, a), product(x.shape(), a + 1, x.shape().rank()),
         true);
  }

private:
  int64_t axis_;
  int64_t num_;
};

/// GatherV2 (axis input) and Gather (axis 0): rows of params picked by
/// indices.
template <bool HasAxis>
class gather_kernel : public basic_kernel {
public:
  explicit gather_kernel(kernel_construction& ctx) {
    if (ctx.attr_or("batch_dims", int64_t{0}) != 0)
      init_ = core::unimplemented_error("GatherV2 with batch_dims != 0");
  }

  void compute(kernel_context& ctx) override {
    const auto& params = ctx.input(0);
    int64_t axis = 0;
    if constexpr (HasAxis)
      ACTORFLOW_OP_REQUIRES_OK(ctx,
                               read_scalar_int(ctx.input(2), "axis", &axis));
    int a = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             canonical_axis(axis, params.shape().rank(), &a));
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             gather_into_output(ctx, params, ctx.input(1), a));
  }
};

} // namespace

core::status gather_into_output(kernel_context& ctx, const core::tensor& params,
                                const core::tensor& indices, int a) {
  const auto& ps = params.shape();
  auto outer = product(ps, 0, a);
  auto n = ps.dim(a);
  auto inner = product(ps, a + 1, ps.rank());
  auto idx = read_ints(indices);
  for (size_t j = 0; j < idx.size(); ++j)
    if (idx[j] < 0 || idx[j] >= n)
      return core::invalid_argument_error("indices[", j, "] = ", idx[j],
                                          " is not in [0, ", n, ")");
  std::vector<int64_t> dims(ps.dims().begin(), ps.dims().begin() + a);
  dims.insert(dims.end(), indices.shape().dims().begin(),
              indices.shape().dims().end());
  dims.insert(dims.end(), ps.dims().begin() + a + 1, ps.dims().end());
  core::tensor* out = nullptr;
  ACTORFLOW_RETURN_IF_ERROR(
    ctx.allocate_output(0, core::shape{std::move(dims)}, &out));
  auto m = static_cast<int64_t>(idx.size());
  visit_storage(params.dtype(), [&](auto tag) {
    using U = decltype(tag);
    const U* src = params.data<U>();
    U* dst = out->mutable_data<U>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < m; ++j)
        std::copy_n(src + (o * n + idx[static_cast<size_t>(j)]) * inner, inner,
                    dst + (o * m + j) * inner);
  });
  return core::status::ok();
}

void register_concat_kernels(kernel_registry& r) {
  r.add_any<concat_kernel<false>>("ConcatV2", device_type);
  r.add_any<concat_kernel<true>>("Concat", device_type);
  r.add_any<split_kernel<false>>("Split", device_type);
  r.add_any<split_kernel<true>>("SplitV", device_type);
  r.add_any<pack_kernel>("Pack", device_type);
  r.add_any<unpack_kernel>("Unpack", device_type);
  r.add_any<gather_kernel<true>>("GatherV2", device_type);
  r.add_any<gather_kernel<false>>("Gather", device_type);
}

} // namespace actorflow::ops::cpu
