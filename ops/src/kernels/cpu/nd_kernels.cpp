// Where, GatherNd, ScatterNd, TensorScatterUpdate and TensorScatterAdd: a
// coordinate is the last dimension of `indices` (q numbers) and names a
// slice of the target -- what lies under its first q dimensions.

#include <sstream>

#include "element_copy.hpp"
#include "kernels.hpp"

namespace actorflow::ops::cpu {

namespace {

/// Where each coordinate of `indices` puts its slice in a `target`-shaped
/// tensor (in slices), and the elements of one slice.
struct nd_plan {
  std::vector<int64_t> offsets;
  int64_t slice = 1;
  /// indices' shape without its last dimension, then target's slice's.
  std::vector<int64_t> updates_dims;
};

core::status plan_nd(const core::shape& target, const core::tensor& indices,
                     nd_plan* plan) {
  const auto& is = indices.shape();
  if (is.rank() < 1)
    return core::invalid_argument_error(
      "indices must have rank 1 or more, got a scalar");
  auto q = is.dim(is.rank() - 1);
  if (q > target.rank())
    return core::invalid_argument_error(
      "indices' last dimension ", q, " is more than the rank ", target.rank(),
      " of ", target.to_string());
  plan->updates_dims.assign(is.dims().begin(), is.dims().end() - 1);
  plan->slice = 1;
  for (auto d = q; d < target.rank(); ++d) {
    plan->updates_dims.push_back(target.dim(static_cast<int>(d)));
    plan->slice *= target.dim(static_cast<int>(d));
  }
  auto idx = read_ints(indices);
  int64_t count = 1;
  for (int d = 0; d + 1 < is.rank(); ++d)
    count *= is.dim(d);
  plan->offsets.assign(static_cast<size_t>(count), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int64_t j = 0; j < q; ++j) {
      auto v = idx[static_cast<size_t>(i * q + j)];
      auto dim = target.dim(static_cast<int>(j));
      if (v < 0 || v >= dim) {
        std::ostringstream coord;
        for (int64_t k = 0; k < q; ++k)
          coord << (k == 0 ? "[" : ", ") << idx[static_cast<size_t>(i * q + k)];
        coord << "]";
        return core::invalid_argument_error("index ", i, " = ", coord.str(),
                                            " is out of range for shape ",
                                            target.to_string());
      }
      offset = offset * dim + v;
    }
    plan->offsets[static_cast<size_t>(i)] = offset;
  }
  return core::status::ok();
}

/// Fails unless `updates` has the shape `plan` wants.
core::status check_updates(const nd_plan& plan, const core::tensor& updates) {
  core::shape want{plan.updates_dims};
  if (updates.shape() == want)
    return core::status::ok();
  return core::invalid_argument_error("updates have shape ",
                                      updates.shape().to_string(), ", not ",
                                      want.to_string());
}

/// Refuses a bad_indices_policy other than an error (TensorFlow's
/// "IGNORE" skips coordinates out of range).
core::status check_policy(kernel_construction& ctx) {
  std::string policy;
  ACTORFLOW_RETURN_IF_ERROR(ctx.get_attr("bad_indices_policy", &policy));
  if (policy.empty() || policy == "DEFAULT" || policy == "ERROR")
    return core::status::ok();
  return core::unimplemented_error("bad_indices_policy '", policy,
                                   "': only an error for a coordinate out of "
                                   "range is implemented");
}

/// Where: the coordinates of the non-zero (true) elements, row-major.
class where_kernel : public basic_kernel {
public:
  explicit where_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto rank = x.shape().rank();
    std::vector<int64_t> hits;
    core::visit_dtype(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_arithmetic_v<T>) {
        const T* p = x.data<T>();
        for (int64_t i = 0; i < x.num_elements(); ++i)
          if (p[i] != T{0})
            hits.push_back(i);
      }
    });
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(
             0, core::shape{{static_cast<int64_t>(hits.size()), int64_t{rank}}},
             &out));
    auto* o = out->mutable_data<int64_t>();
    for (size_t h = 0; h < hits.size(); ++h) {
      auto flat = hits[h];
      for (int d = rank - 1; d >= 0; --d) {
        o[static_cast<int64_t>(h) * rank + d] = flat % x.shape().dim(d);
        flat /= x.shape().dim(d);
      }
    }
  }
};

/// GatherNd: output[i] = the slice of params at coordinate indices[i].
class gather_nd_kernel : public basic_kernel {
public:
  explicit gather_nd_kernel(kernel_construction& ctx) {
    init_ = check_policy(ctx);
  }

  void compute(kernel_context& ctx) override {
    const auto& params = ctx.input(0);
    nd_plan plan;
    ACTORFLOW_OP_REQUIRES_OK(ctx, plan_nd(params.shape(), ctx.input(1), &plan));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{plan.updates_dims}, &out));
    visit_storage(params.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* src = params.data<U>();
      U* dst = out->mutable_data<U>();
      for (size_t i = 0; i < plan.offsets.size(); ++i)
        std::copy_n(src + plan.offsets[i] * plan.slice, plan.slice,
                    dst + static_cast<int64_t>(i) * plan.slice);
    });
  }
};

/// ScatterNd and TensorScatterUpdate/Add: the slices of `updates` written
/// over (`Add` false) or added to (`Add`) a zero tensor of shape `shape`
/// (`FromTensor` false) or a copy of `tensor`.
template <class T, bool FromTensor, bool Add>
class scatter_nd_kernel : public basic_kernel {
public:
  explicit scatter_nd_kernel(kernel_construction& ctx) {
    init_ = check_policy(ctx);
  }

  void compute(kernel_context& ctx) override {
    const auto& indices = ctx.input(FromTensor ? 1 : 0);
    const auto& updates = ctx.input(FromTensor ? 2 : 1);
    core::shape target = FromTensor ? ctx.input(0).shape()
                                    : core::shape{read_ints(ctx.input(2))};
    for (auto d : target.dims())
      ACTORFLOW_OP_REQUIRES(ctx, d >= 0,
                            core::invalid_argument_error(
                              "shape ", target.to_string(), " is negative"));
    nd_plan plan;
    ACTORFLOW_OP_REQUIRES_OK(ctx, plan_nd(target, indices, &plan));
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_updates(plan, updates));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, target, &out));
    T* dst = out->mutable_data<T>();
    if constexpr (FromTensor)
      std::copy_n(ctx.input(0).data<T>(), out->num_elements(), dst);
    else
      std::fill_n(dst, out->num_elements(), T{});
    const T* src = updates.data<T>();
    for (size_t i = 0; i < plan.offsets.size(); ++i) {
      T* to = dst + plan.offsets[i] * plan.slice;
      const T* from = src + static_cast<int64_t>(i) * plan.slice;
      for (int64_t e = 0; e < plan.slice; ++e)
        if constexpr (Add)
          to[e] += from[e];
        else
          to[e] = from[e];
    }
  }
};

template <class T>
using scatter_nd = scatter_nd_kernel<T, false, true>;
template <class T>
using tensor_scatter_update = scatter_nd_kernel<T, true, false>;
template <class T>
using tensor_scatter_add = scatter_nd_kernel<T, true, true>;

} // namespace

void register_nd_kernels(kernel_registry& r) {
  r.add_any<where_kernel>("Where", device_type);
  r.add_any<gather_nd_kernel>("GatherNd", device_type);
  r.add_typed<scatter_nd, float, double, int32_t, int64_t>("ScatterNd",
                                                           device_type);
  r.add_typed<tensor_scatter_update, bool, float, double, int32_t, int64_t>(
    "TensorScatterUpdate", device_type);
  r.add_typed<tensor_scatter_add, float, double, int32_t, int64_t>(
    "TensorScatterAdd", device_type);
}

} // namespace actorflow::ops::cpu
