#include "kernels.hpp"

#include <limits>

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
    const auto& axes = ctx.input(1);
    int rank = x.shape().rank();
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    ACTORFLOW_OP_REQUIRES(ctx, axes.shape().rank() <= 1,
                          core::invalid_argument_error(
                            "reduction_indices must be a scalar or a vector, "
                            "got shape ",
                            axes.shape().to_string()));
    for (int64_t i = 0; i < axes.num_elements(); ++i) {
      int64_t a = axes.dtype() == core::dtype::int32 ? axes.data<int32_t>()[i]
                                                     : axes.data<int64_t>()[i];
      ACTORFLOW_OP_REQUIRES(ctx, a >= -rank && a < rank,
                            core::invalid_argument_error(
                              "reduction axis ", a, " is out of range for a ",
                              "tensor of rank ", rank));
      reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
    }
    std::vector<int64_t> out_dims;
    int64_t count = 1;
    for (int d = 0; d < rank; ++d) {
      auto du = static_cast<size_t>(d);
      if (reduced[du]) {
        count *= x.shape().dim(d);
        if (keep_dims_)
          out_dims.push_back(1);
      } else {
        out_dims.push_back(x.shape().dim(d));
      }
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{std::move(out_dims)}, &out));
    T* z = out->mutable_data<T>();
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
    if constexpr (Mean) {
      if (count > 0)
        for (int64_t i = 0; i < out->num_elements(); ++i)
          z[i] = z[i] / static_cast<T>(count);
      else if constexpr (std::numeric_limits<T>::has_quiet_NaN)
        for (int64_t i = 0; i < out->num_elements(); ++i)
          z[i] = std::numeric_limits<T>::quiet_NaN();
    }
  }

private:
  bool keep_dims_ = false;
};

template <class Reducer, bool Mean = false>
struct with {
  template <class T>
  using kernel = reduction_kernel<T, Reducer, Mean>;
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
}

} // namespace actorflow::ops::cpu
