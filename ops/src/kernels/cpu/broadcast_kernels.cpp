// BroadcastTo and SelectV2: NumPy broadcasting by index.

#include "broadcast.hpp"
#include "element_copy.hpp"
#include "kernels.hpp"

#include "actorflow/ops/shape_context.hpp"

namespace actorflow::ops::cpu {

std::vector<int64_t> broadcast_strides(const core::shape& s, int rank,
                                       const core::shape& out) {
  std::vector<int64_t> strides(static_cast<size_t>(rank), 0);
  int64_t stride = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    auto oi = rank - s.rank() + i;
    if (s.dim(i) != 1 || out.dim(oi) == 1)
      strides[static_cast<size_t>(oi)] = s.dim(i) == 1 ? 0 : stride;
    stride *= s.dim(i);
  }
  return strides;
}

namespace {

/// small's dimension d of big's rank (1 where small has none).
int64_t aligned_dim(const core::shape& big, const core::shape& small, int d) {
  auto k = d - (big.rank() - small.rank());
  return k < 0 ? 1 : small.dim(k);
}

} // namespace

bool repeats_each_element(const core::shape& big, const core::shape& small,
                          int64_t* run) {
  if (small.rank() > big.rank())
    return false;
  int d = 0;
  while (d < big.rank() && aligned_dim(big, small, d) == big.dim(d))
    ++d;
  *run = 1;
  for (int e = d; e < big.rank(); ++e) {
    if (aligned_dim(big, small, e) != 1)
      return false;
    *run *= big.dim(e);
  }
  return true;
}

bool repeats_whole(const core::shape& big, const core::shape& small) {
  if (small.rank() > big.rank())
    return false;
  int d = big.rank();
  while (d > 0 && aligned_dim(big, small, d - 1) == big.dim(d - 1))
    --d;
  for (int e = 0; e < d; ++e)
    if (aligned_dim(big, small, e) != 1)
      return false;
  return true;
}

namespace {

/// `in` repeated to `out`'s shape (which it broadcasts to).
void broadcast_into(const core::tensor& in, core::tensor& out) {
  const auto& os = out.shape();
  copy_box(in, 0, broadcast_strides(in.shape(), os.rank(), os), out, 0,
           strides_of(os), os.dims());
}

/// BroadcastTo: the input repeated to the shape input 1 holds.
class broadcast_to_kernel : public basic_kernel {
public:
  explicit broadcast_to_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    core::shape to{read_ints(ctx.input(1))};
    core::shape out_shape;
    auto st = broadcast_shapes(x.shape(), to, &out_shape);
    ACTORFLOW_OP_REQUIRES(ctx, st.is_ok() && out_shape == to,
                          core::invalid_argument_error("cannot broadcast ",
                                                       x.shape().to_string(),
                                                       " to ", to.to_string()));
    if (x.shape() == to) {
      ctx.set_output(0, x);
      return;
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, to, &out));
    broadcast_into(x, *out);
  }
};

/// SelectV2: condition ? t : e with the three broadcast together.
class select_v2_kernel : public basic_kernel {
public:
  explicit select_v2_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    const auto& c = ctx.input(0);
    const auto& t = ctx.input(1);
    const auto& e = ctx.input(2);
    core::shape te;
    core::shape out_shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, broadcast_shapes(t.shape(), e.shape(), &te));
    ACTORFLOW_OP_REQUIRES_OK(ctx, broadcast_shapes(c.shape(), te, &out_shape));
    core::tensor* out = nullptr;
    if (c.shape().rank() == 0) {
      // One choice: the chosen input, repeated if it must be.
      const auto& chosen = c.scalar_value<bool>() ? t : e;
      if (chosen.shape() == out_shape) {
        ctx.set_output(0, chosen);
        return;
      }
      ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
      broadcast_into(chosen, *out);
      return;
    }
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    const bool* cp = c.data<bool>();
    visit_storage(t.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* tp = t.data<U>();
      const U* ep = e.data<U>();
      U* op = out->mutable_data<U>();
      for_each_broadcast<3>(out_shape, {&c.shape(), &t.shape(), &e.shape()},
                            [&](int64_t i, const std::array<int64_t, 3>& at) {
                              op[i] = cp[at[0]] ? tp[at[1]] : ep[at[2]];
                            });
    });
  }
};

} // namespace

void register_broadcast_kernels(kernel_registry& r) {
  r.add_any<broadcast_to_kernel>("BroadcastTo", device_type);
  r.add_any<select_v2_kernel>("SelectV2", device_type);
}

} // namespace actorflow::ops::cpu
