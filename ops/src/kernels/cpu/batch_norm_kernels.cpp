// Batch normalisation on the CPU: FusedBatchNorm and FusedBatchNormV3
// (NHWC and NCHW; training and inference) and their gradients.

#include "batch_norm_affine.hpp"
#include "kernels.hpp"
#include "parallel_split.hpp"

#include <algorithm>
#include <cmath>

namespace actorflow::ops::cpu {

namespace {

/// Where a batch-normalised tensor keeps its channels: NHWC (last) or
/// NCHW (second); it is walked as [outer, C, inner].
struct channel_layout {
  int axis = 3;
  int64_t outer = 0, inner = 1;

  /// Reads `data_format`; another than NHWC or NCHW is `unimplemented`.
  static core::status read(const kernel_construction& ctx,
                           channel_layout* out) {
    auto format = ctx.attr_or("data_format", std::string{"NHWC"});
    if (format != "NHWC" && format != "NCHW")
      return core::unimplemented_error("data_format must be NHWC or NCHW, "
                                       "got '",
                                       format, "'");
    out->axis = format == "NHWC" ? 3 : 1;
    return core::status::ok();
  }

  /// Sets the walk for `x` of `c` channels.
  void plan(const core::shape& x, int64_t c) {
    inner = axis == 3 ? 1 : x.dim(2) * x.dim(3);
    outer = c == 0 || inner == 0 ? 0 : x.num_elements() / (c * inner);
  }

  /// Calls `f(i, j)` for every element of outer rows [first, last): flat
  /// index i, channel j.
  template <class F>
  void for_rows(int64_t first, int64_t last, int64_t c, F&& f) const {
    if (inner == 1) { // NHWC: one loop over the contiguous channels
      for (int64_t o = first; o < last; ++o)
        for (int64_t j = 0; j < c; ++j)
          f(o * c + j, j);
      return;
    }
    for (int64_t o = first; o < last; ++o)
      for (int64_t j = 0; j < c; ++j) {
        auto base = (o * c + j) * inner;
        for (int64_t i = base; i < base + inner; ++i)
          f(i, j);
      }
  }

  /// Calls `f(i, j)` for every element, over blocks of the outer rows on
  /// the device's pool when the tensor is large.
  template <class F>
  void for_each(kernel_context& ctx, int64_t c, F&& f) const {
    parallel_split split{&ctx, outer * c * inner >= parallel_threshold};
    split.for_range(
      outer, [&](int64_t first, int64_t last) { for_rows(first, last, c, f); });
  }

  /// Per-channel sums of `k` quantities: `f(i, j, sums)` adds element i's
  /// (channel j) terms into sums[m * c + j], m < k. Over blocks of the
  /// outer rows on the device's pool, each block's sums of its own, added
  /// in block order.
  template <class T, class F>
  std::vector<T> sums(kernel_context& ctx, int64_t c, int k, F&& f) const {
    auto size = static_cast<size_t>(c * k);
    parallel_split split{&ctx, outer * c * inner >= parallel_threshold};
    auto parts = static_cast<int>(
      std::max<int64_t>(std::min<int64_t>(split.threads(), outer), 1));
    std::vector<std::vector<T>> partial(static_cast<size_t>(parts),
                                        std::vector<T>(size, T(0)));
    split.run(parts, [&](int part) {
      T* acc = partial[static_cast<size_t>(part)].data();
      for_rows(outer * part / parts, outer * (part + 1) / parts, c,
               [&](int64_t i, int64_t j) { f(i, j, acc); });
    });
    for (size_t part = 1; part < partial.size(); ++part)
      for (size_t m = 0; m < size; ++m)
        partial[0][m] += partial[part][m];
    return std::move(partial[0]);
  }
};

/// FusedBatchNormGrad: the gradients of FusedBatchNorm with respect to x,
/// scale and offset, from the mean and variance it used (its
/// reserve_space_1 and _2). In training the mean and variance depend on x,
/// which adds the two centring terms to x's gradient.
template <class T>
class batch_norm_grad_kernel : public basic_kernel {
public:
  explicit batch_norm_grad_kernel(kernel_construction& ctx) {
    epsilon_ = static_cast<T>(ctx.attr_or("epsilon", 0.0001));
    training_ = ctx.attr_or("is_training", true);
    init_ = channel_layout::read(ctx, &layout_);
  }

  void compute(kernel_context& ctx) override {
    const auto& dy = ctx.input(0);
    const auto& x = ctx.input(1);
    std::vector<core::tensor*> outs;
    int64_t c = 0;
    int64_t rows = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, batch_norm_grad_outputs(ctx, &outs, &c, &rows, layout_.axis));
    auto walk = layout_;
    walk.plan(x.shape(), c);
    const T* g = dy.data<T>();
    const T* xp = x.data<T>();
    const T* scale = ctx.input(2).data<T>();
    const T* mean = ctx.input(3).data<T>();
    const T* var = ctx.input(4).data<T>();
    std::vector<T> inv(static_cast<size_t>(c));
    for (int64_t j = 0; j < c; ++j)
      inv[static_cast<size_t>(j)] = T(1) / std::sqrt(var[j] + epsilon_);
    const T* ip = inv.data();
    // sum(dy) and sum(dy * xhat) per channel, side by side.
    auto sums
      = walk.template sums<T>(ctx, c, 2, [&](int64_t i, int64_t j, T* acc) {
          acc[j] += g[i];
          acc[c + j] += g[i] * (xp[i] - mean[j]) * ip[j];
        });
    const T* sum_g = sums.data();
    const T* sum_gx = sum_g + c;
    T* dx = outs[0]->template mutable_data<T>();
    auto n = static_cast<T>(std::max<int64_t>(rows, 1));
    // dx = scale * inv * (dy - [sum_g / n + xhat * sum_gx / n]).
    std::vector<T> k(static_cast<size_t>(c)), shift(k.size()), tilt(k.size());
    for (int64_t j = 0; j < c; ++j) {
      auto ju = static_cast<size_t>(j);
      k[ju] = scale[j] * inv[ju];
      shift[ju] = training_ ? sum_g[j] / n : T(0);
      tilt[ju] = training_ ? sum_gx[j] / n * inv[ju] : T(0);
    }
    const T* kp = k.data();
    const T* sp = shift.data();
    const T* tp = tilt.data();
    walk.for_each(ctx, c, [&](int64_t i, int64_t j) {
      dx[i] = kp[j] * (g[i] - sp[j] - (xp[i] - mean[j]) * tp[j]);
    });
    std::copy_n(sum_gx, c, outs[1]->template mutable_data<T>());
    std::copy_n(sum_g, c, outs[2]->template mutable_data<T>());
  }

private:
  T epsilon_;
  bool training_;
  channel_layout layout_;
};

/// Batch normalisation over every axis but the channels' (NHWC or NCHW).
/// Training uses the batch's statistics (and reports the variance with
/// Bessel's correction, blended into the running one by
/// exponential_avg_factor); inference uses the given mean and variance.
template <class T>
class batch_norm_kernel : public basic_kernel {
public:
  explicit batch_norm_kernel(kernel_construction& ctx) {
    epsilon_ = static_cast<T>(ctx.attr_or("epsilon", 0.0001));
    factor_ = static_cast<T>(ctx.attr_or("exponential_avg_factor", 1.0));
    training_ = ctx.attr_or("is_training", true);
    init_ = channel_layout::read(ctx, &layout_);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    std::vector<core::tensor*> outs;
    int64_t c = 0;
    int64_t rows = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, batch_norm_outputs(ctx, training_, &outs, &c, &rows, layout_.axis));
    auto walk = layout_;
    walk.plan(x.shape(), c);
    const T* xp = x.data<T>();
    std::vector<T> mean(static_cast<size_t>(c), 0), var(mean);
    if (training_) {
      mean = walk.template sums<T>(
        ctx, c, 1, [&](int64_t i, int64_t j, T* acc) { acc[j] += xp[i]; });
      for (auto& m : mean)
        m /= static_cast<T>(rows);
      const T* mp = mean.data();
      var = walk.template sums<T>(ctx, c, 1, [&](int64_t i, int64_t j, T* acc) {
        auto d = xp[i] - mp[j];
        acc[j] += d * d;
      });
      for (auto& v : var)
        v /= static_cast<T>(rows);
    } else {
      std::copy_n(ctx.input(3).data<T>(), c, mean.begin());
      std::copy_n(ctx.input(4).data<T>(), c, var.begin());
    }
    const T* scale = ctx.input(1).data<T>();
    const T* offset = ctx.input(2).data<T>();
    T* y = outs[0]->template mutable_data<T>();
    // y = x * a + b per channel (a = scale / sqrt(var + epsilon), b =
    // offset - mean * a, as TensorFlow's CPU kernel), over blocks of the
    // outer dimension on the device's pool.
    std::vector<T> a(static_cast<size_t>(c)), b(a.size());
    batch_norm_affine(c, scale, offset, mean.data(), var.data(), epsilon_,
                      a.data(), b.data());
    parallel_split split{&ctx, x.num_elements() >= parallel_threshold};
    const T* ap = a.data();
    const T* bp = b.data();
    auto inner = walk.inner;
    split.for_range(walk.outer, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) {
        const T* xo = xp + o * c * inner;
        T* yo = y + o * c * inner;
        if (inner == 1) { // NHWC: the channels contiguous
          for (int64_t j = 0; j < c; ++j)
            yo[j] = xo[j] * ap[j] + bp[j];
          continue;
        }
        for (int64_t j = 0; j < c; ++j)
          for (int64_t k = 0; k < inner; ++k)
            yo[j * inner + k] = xo[j * inner + k] * ap[j] + bp[j];
      }
    });
    for (int64_t j = 0; j < c; ++j) {
      auto ju = static_cast<size_t>(j);
      T batch_mean = mean[ju], batch_var = var[ju];
      if (training_) {
        if (rows > 1)
          batch_var = var[ju] * static_cast<T>(rows) / static_cast<T>(rows - 1);
        if (factor_ != T(1) && ctx.input(3).num_elements() == c) {
          batch_mean
            = (1 - factor_) * ctx.input(3).data<T>()[j] + factor_ * batch_mean;
          batch_var
            = (1 - factor_) * ctx.input(4).data<T>()[j] + factor_ * batch_var;
        }
      }
      outs[1]->template mutable_data<T>()[j] = batch_mean;
      outs[2]->template mutable_data<T>()[j] = batch_var;
      outs[3]->template mutable_data<T>()[j] = mean[ju];
      outs[4]->template mutable_data<T>()[j] = var[ju];
    }
  }

private:
  T epsilon_;
  T factor_;
  bool training_;
  channel_layout layout_;
};

} // namespace

void register_batch_norm_kernels(kernel_registry& r) {
  r.add_typed<batch_norm_kernel, float, double>("FusedBatchNorm", device_type);
  r.add_typed<batch_norm_grad_kernel, float, double>("FusedBatchNormGrad",
                                                     device_type);
  r.add_typed<batch_norm_kernel, float, double>("FusedBatchNormV3",
                                                device_type);
  r.add_typed<batch_norm_grad_kernel, float, double>("FusedBatchNormGradV3",
                                                     device_type);
}

} // namespace actorflow::ops::cpu
