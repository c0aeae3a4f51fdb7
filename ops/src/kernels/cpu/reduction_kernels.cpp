#include "kernels.hpp"

#include "actorflow/ops/shape_context.hpp"

#include <limits>

#include <Eigen/Core>

namespace actorflow::ops::cpu {

namespace {

struct sum_reducer {
  template <class T>
  static T init() {
    return T(0);
  }
  template <class T>
  static T combine(T acc, T x) {
    return acc + x;
  }
  template <class A>
  static auto rows(const A& a) {
    return a.rowwise().sum();
  }
};

struct prod_reducer {
  template <class T>
  static T init() {
    return T(1);
  }
  template <class T>
  static T combine(T acc, T x) {
    return acc * x;
  }
  template <class A>
  static auto rows(const A& a) {
    return a.rowwise().prod();
  }
};

struct max_reducer {
  template <class T>
  static T init() {
    return std::numeric_limits<T>::has_infinity
             ? -std::numeric_limits<T>::infinity()
             : std::numeric_limits<T>::lowest();
  }
  template <class T>
  static T combine(T acc, T x) {
    return acc < x ? x : acc;
  }
  template <class A>
  static auto rows(const A& a) {
    return a.rowwise().maxCoeff();
  }
};

struct min_reducer {
  template <class T>
  static T init() {
    return std::numeric_limits<T>::has_infinity
             ? std::numeric_limits<T>::infinity()
             : std::numeric_limits<T>::max();
  }
  template <class T>
  static T combine(T acc, T x) {
    return x < acc ? x : acc;
  }
  template <class A>
  static auto rows(const A& a) {
    return a.rowwise().minCoeff();
  }
};

struct all_reducer {
  template <class T>
  static T init() {
    return true;
  }
  template <class T>
  static T combine(T acc, T x) {
    return acc && x;
  }
  template <class A>
  static auto rows(const A& a) {
    return a.rowwise().all();
  }
};

struct any_reducer {
  template <class T>
  static T init() {
    return false;
  }
  template <class T>
  static T combine(T acc, T x) {
    return acc || x;
  }
  template <class A>
  static auto rows(const A& a) {
    return a.rowwise().any();
  }
};

/// Reduces input 0 over the axes in input 1 (negative axes count from the
/// end, repeats are ignored); keep_dims keeps reduced axes as size 1. Mean
/// is the sum divided by the number of reduced elements.
template <class T, class Reducer, bool Mean>
class reduction_kernel : public basic_kernel {
public:
  explicit reduction_kernel(kernel_construction& ctx) {
    keep_dims_ = ctx.attr_or("keep_dims", false);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& axes_t = ctx.input(1);
    int rank = x.shape().rank();
    ACTORFLOW_OP_REQUIRES(ctx, axes_t.shape().rank() <= 1,
                          core::invalid_argument_error(
                            "reduction_indices must be a scalar or a vector, "
                            "got shape ",
                            axes_t.shape().to_string()));
    if (!keep_dims_ && x.num_elements() > 0 && names_every_axis(axes_t, rank)) {
      // Everything into a scalar (a loss, a norm): the whole buffer in one
      // pass, as the one-block path below would, with no shapes to build.
      core::tensor* out = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {}, &out));
      T* z = out->mutable_data<T>();
      Eigen::Map<const array> a{x.data<T>(), 1, x.num_elements()};
      z[0] = Reducer::rows(a)(0);
      finish_mean(z, 1, x.num_elements());
      return;
    }
    auto axes = read_ints(axes_t);
    core::shape out_shape;
    std::vector<bool> reduced;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, reduced_shape(x.shape(), axes, keep_dims_, &out_shape, &reduced));
    int64_t count = 1;
    for (int d = 0; d < rank; ++d)
      if (reduced[static_cast<size_t>(d)])
        count *= x.shape().dim(d);
    if (count == 1) {
      // Nothing to combine (no axis, or axes of size 1: what a gradient's
      // broadcast reduction gets for operands of one shape): the input's
      // buffer, in the output's shape.
      core::tensor same;
      ACTORFLOW_OP_REQUIRES_OK(ctx, x.reshaped(out_shape, &same));
      ctx.set_output(0, std::move(same));
      return;
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
    T* z = out->mutable_data<T>();
    if (count > 0 && reduce_blocks(x, reduced, z)) {
      finish_mean(z, out->num_elements(), count);
      return;
    }
    for (int64_t i = 0; i < out->num_elements(); ++i)
      z[i] = Reducer::template init<T>();
    // Walk the input in order; `o` is the output offset of the current
    // element, its stride 0 along reduced axes.
    std::vector<int64_t> ostride(static_cast<size_t>(rank), 0);
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d)
      if (!reduced[static_cast<size_t>(d)]) {
        ostride[static_cast<size_t>(d)] = stride;
        stride *= x.shape().dim(d);
      }
    std::vector<int64_t> index(static_cast<size_t>(rank), 0);
    const T* xp = x.data<T>();
    int64_t o = 0;
    for (int64_t i = 0, n = x.num_elements(); i < n; ++i) {
      z[o] = Reducer::combine(z[o], xp[i]);
      for (int d = rank - 1; d >= 0; --d) {
        auto du = static_cast<size_t>(d);
        o += ostride[du];
        if (++index[du] < x.shape().dim(d))
          break;
        o -= ostride[du] * x.shape().dim(d);
        index[du] = 0;
      }
    }
    finish_mean(z, out->num_elements(), count);
  }

private:
  using array
    = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using column = Eigen::Array<T, Eigen::Dynamic, 1>;

  /// Reduces with Eigen's vectorised row/column reductions when the
  /// dimensions collapse into [reduced], [kept, reduced], [reduced, kept]
  /// or [kept, reduced, kept]; returns false otherwise.
  static bool reduce_blocks(const core::tensor& x,
                            const std::vector<bool>& reduced, T* z) {
    std::vector<std::pair<int64_t, bool>> groups; // (size, reduced)
    for (int d = 0; d < x.shape().rank(); ++d) {
      auto size = x.shape().dim(d);
      bool r = reduced[static_cast<size_t>(d)];
      if (size == 1)
        continue;
      if (!groups.empty() && groups.back().second == r)
        groups.back().first *= size;
      else
        groups.emplace_back(size, r);
    }
    const T* xp = x.data<T>();
    auto n = groups.size();
    // Groups alternate, so one reduced group means n <= 2, or n == 3 with
    // the reduced one in the middle.
    bool one_reduced
      = (n == 1 && groups[0].second) || n == 2 || (n == 3 && groups[1].second);
    if (!one_reduced)
      return false;
    if (n == 1) {
      Eigen::Map<const array> a{xp, 1, groups[0].first};
      z[0] = Reducer::rows(a)(0);
    } else if (groups[0].second) { // [reduced, kept]
      combine_rows(xp, groups[0].first, groups[1].first, z);
    } else if (n == 2) { // [kept, reduced]
      Eigen::Map<const array> a{xp, groups[0].first, groups[1].first};
      Eigen::Map<column>{z, groups[0].first} = Reducer::rows(a);
    } else { // [kept, reduced, kept]
      auto r = groups[1].first, inner = groups[2].first;
      for (int64_t o = 0; o < groups[0].first; ++o)
        combine_rows(xp + o * r * inner, r, inner, z + o * inner);
    }
    return true;
  }

  /// z = the rows of x ([rows, cols], row-major) combined element-wise: one
  /// pass in memory order, which the compiler vectorises.
  static void combine_rows(const T* x, int64_t rows, int64_t cols, T* z) {
    std::copy_n(x, cols, z);
    for (int64_t r = 1; r < rows; ++r) {
      const T* in = x + r * cols;
      for (int64_t k = 0; k < cols; ++k)
        z[k] = Reducer::combine(z[k], in[k]);
    }
  }

  /// Whether `axes` (a scalar or a vector of int32 or int64) names every
  /// dimension of a tensor of rank `rank`, 1 to 64. An axis out of range
  /// gives false: the general path reports it.
  static bool names_every_axis(const core::tensor& axes, int rank) {
    bool wide = axes.dtype() == core::dtype::int64;
    if (rank < 1 || rank > 64 || axes.shape().rank() > 1
        || (!wide && axes.dtype() != core::dtype::int32))
      return false;
    uint64_t seen = 0;
    for (int64_t i = 0; i < axes.num_elements(); ++i) {
      int64_t a = wide ? axes.data<int64_t>()[i] : axes.data<int32_t>()[i];
      if (a < -rank || a >= rank)
        return false;
      seen |= uint64_t{1} << (a < 0 ? a + rank : a);
    }
    return seen == (rank == 64 ? ~uint64_t{0} : (uint64_t{1} << rank) - 1);
  }

  /// Turns sums into means (NaN for floats when nothing was reduced).
  static void finish_mean(T* z, int64_t n, int64_t count) {
    if constexpr (Mean) {
      if (count > 0)
        for (int64_t i = 0; i < n; ++i)
          z[i] = z[i] / static_cast<T>(count);
      else if constexpr (std::numeric_limits<T>::has_quiet_NaN)
        for (int64_t i = 0; i < n; ++i)
          z[i] = std::numeric_limits<T>::quiet_NaN();
    }
  }

  bool keep_dims_ = false;
};

template <class Reducer, bool Mean = false>
struct with {
  template <class T>
  using kernel = reduction_kernel<T, Reducer, Mean>;
};

/// The index of the largest (ArgMax) or smallest (ArgMin) element along
/// the axis given by input 1; the first one on ties.
template <class T, bool Max>
class arg_reduction_kernel : public basic_kernel {
public:
  explicit arg_reduction_kernel(kernel_construction& ctx)
    : out_type_(ctx.output_types()[0].type) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const auto& axis_t = ctx.input(1);
    int rank = x.shape().rank();
    int64_t axis = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, read_scalar_int(axis_t, "the axis", &axis));
    int a = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, canonical_axis(axis, rank, &a));
    int64_t n = x.shape().dim(a);
    ACTORFLOW_OP_REQUIRES(ctx, n > 0,
                          core::invalid_argument_error(
                            "cannot take the arg of an empty dimension (axis ",
                            a, " of ", x.shape().to_string(), ")"));
    std::vector<int64_t> dims;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < rank; ++d) {
      if (d == a)
        continue;
      dims.push_back(x.shape().dim(d));
      (d < a ? outer : inner) *= x.shape().dim(d);
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{std::move(dims)}, &out));
    const T* xp = x.data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const T* base = xp + o * n * inner + i;
        int64_t best = 0;
        for (int64_t k = 1; k < n; ++k)
          if (Max ? base[best * inner] < base[k * inner]
                  : base[k * inner] < base[best * inner])
            best = k;
        auto at = o * inner + i;
        if (out_type_ == core::dtype::int32)
          out->mutable_data<int32_t>()[at] = static_cast<int32_t>(best);
        else
          out->mutable_data<int64_t>()[at] = best;
      }
  }

private:
  core::dtype out_type_;
};

template <bool Max>
struct arg {
  template <class T>
  using kernel = arg_reduction_kernel<T, Max>;
};

} // namespace

void register_reduction_kernels(kernel_registry& r) {
  r.add_typed<with<sum_reducer>::kernel, float, double, int32_t, int64_t>(
    "Sum", device_type);
  r.add_typed<with<sum_reducer, true>::kernel, float, double, int32_t, int64_t>(
    "Mean", device_type);
  r.add_typed<with<max_reducer>::kernel, float, double, int32_t, int64_t>(
    "Max", device_type);
  r.add_typed<with<min_reducer>::kernel, float, double, int32_t, int64_t>(
    "Min", device_type);
  r.add_typed<with<prod_reducer>::kernel, float, double, int32_t, int64_t>(
    "Prod", device_type);
  r.add_any<reduction_kernel<bool, all_reducer, false>>("All", device_type);
  r.add_any<reduction_kernel<bool, any_reducer, false>>("Any", device_type);
  r.add_typed<arg<true>::kernel, float, double, int32_t, int64_t>("ArgMax",
                                                                  device_type);
  r.add_typed<arg<false>::kernel, float, double, int32_t, int64_t>("ArgMin",
                                                                   device_type);
}

} // namespace actorflow::ops::cpu
