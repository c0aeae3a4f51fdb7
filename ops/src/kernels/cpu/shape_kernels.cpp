// Kernels that make or reinterpret shapes: Fill, ZerosLike, OnesLike,
// Shape, Rank, Size, Reshape, ExpandDims, Squeeze, Range, OneHot.

#include "kernels.hpp"

#include <cmath>

#include "actorflow/ops/array_shapes.hpp"
#include "element_copy.hpp"

namespace actorflow::ops::cpu {

namespace {

/// Reads a shape from an int vector input, checking every size.
core::status read_shape(const core::tensor& t, core::shape* out) {
  if (t.shape().rank() != 1)
    return core::invalid_argument_error("a shape must be a vector, got shape ",
                                        t.shape().to_string());
  auto dims = read_ints(t);
  for (auto d : dims)
    if (d < 0)
      return core::invalid_argument_error("dimension sizes must be "
                                          "non-negative, got ",
                                          core::shape{dims}.to_string());
  *out = core::shape{std::move(dims)};
  return core::status::ok();
}

class fill_kernel : public cheap_kernel {
public:
  explicit fill_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& value = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, value.shape().rank() == 0,
      core::invalid_argument_error("Fill value must be a scalar, got shape ",
                                   value.shape().to_string()));
    core::shape s;
    ACTORFLOW_OP_REQUIRES_OK(ctx, read_shape(ctx.input(0), &s));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, s, &out));
    visit_storage(value.dtype(), [&](auto tag) {
      using U = decltype(tag);
      std::fill_n(out->mutable_data<U>(), out->num_elements(),
                  value.data<U>()[0]);
    });
  }
};

template <class T, int Value>
class constant_like_kernel : public cheap_kernel {
public:
  explicit constant_like_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, ctx.input(0).shape(), &out));
    std::fill_n(out->mutable_data<T>(), out->num_elements(),
                static_cast<T>(Value));
  }
};

template <int Value>
struct like {
  template <class T>
  using kernel = constant_like_kernel<T, Value>;
};

enum class shape_query { shape, rank, size };

template <shape_query Q>
class shape_query_kernel : public cheap_kernel {
public:
  explicit shape_query_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& s = ctx.input(0).shape();
    if constexpr (Q == shape_query::shape) {
      // Shape, or ShapeN: the shape of each input.
      for (size_t i = 0; i < ctx.num_inputs(); ++i)
        emit_ints(ctx, ctx.input(i).shape().dims(), false, i);
    } else if constexpr (Q == shape_query::rank)
      emit_ints(ctx, {s.rank()}, true);
    else
      emit_ints(ctx, {s.num_elements()}, true);
  }
};

/// Emits input 0 with shape `s`, sharing its buffer.
void emit_reshaped(kernel_context& ctx, const core::shape& s) {
  core::tensor y;
  ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.input(0).reshaped(s, &y));
  ctx.set_output(0, std::move(y));
}

/// Reshape, ExpandDims and Squeeze share the input's buffer.
class reshape_kernel : public cheap_kernel {
public:
  explicit reshape_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& shape_t = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, shape_t.shape().rank() == 1,
      core::invalid_argument_error("Reshape needs a shape vector, got shape ",
                                   shape_t.shape().to_string()));
    core::shape s;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, reshape_shape(ctx.input(0).shape(), read_ints(shape_t), &s));
    emit_reshaped(ctx, s);
  }
};

class expand_dims_kernel : public cheap_kernel {
public:
  explicit expand_dims_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    int64_t dim = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, read_scalar_int(ctx.input(1), "dim", &dim));
    int a = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             canonical_axis(dim, x.shape().rank() + 1, &a));
    auto dims = x.shape().dims();
    dims.insert(dims.begin() + a, 1);
    emit_reshaped(ctx, core::shape{std::move(dims)});
  }
};

class squeeze_kernel : public cheap_kernel {
public:
  explicit squeeze_kernel(kernel_construction& ctx) {
    axes_ = ctx.attr_or("squeeze_dims", std::vector<int64_t>{});
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    int rank = x.shape().rank();
    std::vector<bool> named(static_cast<size_t>(rank), axes_.empty());
    for (auto axis : axes_) {
      int a = 0;
      ACTORFLOW_OP_REQUIRES_OK(ctx, canonical_axis(axis, rank, &a));
      ACTORFLOW_OP_REQUIRES(
        ctx, x.shape().dim(a) == 1,
        core::invalid_argument_error("cannot squeeze dimension ", a, " of ",
                                     x.shape().to_string()));
      named[static_cast<size_t>(a)] = true;
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d)
      if (!(named[static_cast<size_t>(d)] && x.shape().dim(d) == 1))
        dims.push_back(x.shape().dim(d));
    emit_reshaped(ctx, core::shape{std::move(dims)});
  }

private:
  std::vector<int64_t> axes_;
};

template <class T>
class range_kernel : public cheap_kernel {
public:
  explicit range_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    for (size_t i = 0; i < 3; ++i)
      ACTORFLOW_OP_REQUIRES(ctx, ctx.input(i).shape().rank() == 0,
                            core::invalid_argument_error(
                              "Range needs scalar inputs, input ", i,
                              " has shape ", ctx.input(i).shape().to_string()));
    T start = ctx.input(0).scalar_value<T>();
    T limit = ctx.input(1).scalar_value<T>();
    T delta = ctx.input(2).scalar_value<T>();
    ACTORFLOW_OP_REQUIRES(
      ctx,
      delta != 0 && !(delta > 0 && start > limit)
        && !(delta < 0 && start < limit),
      core::invalid_argument_error("Range from ", start, " to ", limit, " by ",
                                   delta, " is empty or endless"));
    int64_t n;
    if constexpr (std::is_integral_v<T>) {
      auto span = std::abs(static_cast<int64_t>(limit) - start);
      auto step = std::abs(static_cast<int64_t>(delta));
      n = (span + step - 1) / step;
    } else {
      n = static_cast<int64_t>(std::ceil(std::abs((limit - start) / delta)));
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {n}, &out));
    T* z = out->mutable_data<T>();
    for (int64_t i = 0; i < n; ++i)
      z[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  }
};

/// One-hot encoding: on_value where the index matches, off_value elsewhere;
/// indices out of [0, depth) give a row of off_value, as in TensorFlow.
template <class T>
class one_hot_kernel : public basic_kernel {
public:
  explicit one_hot_kernel(kernel_construction& ctx) {
    axis_ = ctx.attr_or("axis", int64_t{-1});
  }

  void compute(kernel_context& ctx) override {
    const auto& indices = ctx.input(0);
    int64_t depth = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             read_scalar_int(ctx.input(1), "depth", &depth));
    ACTORFLOW_OP_REQUIRES(ctx, depth >= 0,
                          core::invalid_argument_error(
                            "OneHot depth must be non-negative, got ", depth));
    int rank = indices.shape().rank();
    ACTORFLOW_OP_REQUIRES(
      ctx, axis_ >= -1 && axis_ <= rank,
      core::invalid_argument_error(
        "OneHot axis ", axis_, " is out of range for indices of rank ", rank));
    auto a = axis_ < 0 ? rank : static_cast<int>(axis_);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < rank; ++d)
      (d < a ? outer : inner) *= indices.shape().dim(d);
    auto dims = indices.shape().dims();
    dims.insert(dims.begin() + a, depth);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{std::move(dims)}, &out));
    T on = ctx.input(2).scalar_value<T>();
    T off = ctx.input(3).scalar_value<T>();
    T* z = out->mutable_data<T>();
    std::fill_n(z, out->num_elements(), off);
    core::visit_dtype(indices.dtype(), [&](auto tag) {
      using I = decltype(tag);
      if constexpr (std::is_integral_v<I>) {
        const I* ip = indices.data<I>();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            auto k = static_cast<int64_t>(ip[o * inner + i]);
            if (k >= 0 && k < depth)
              z[(o * depth + k) * inner + i] = on;
          }
      }
    });
  }

private:
  int64_t axis_ = -1;
};

} // namespace

void emit_ints(kernel_context& ctx, const std::vector<int64_t>& values,
               bool scalar, size_t i) {
  core::tensor* out = nullptr;
  core::shape s
    = scalar ? core::shape{} : core::shape{static_cast<int64_t>(values.size())};
  ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(i, s, &out));
  for (size_t i = 0; i < values.size(); ++i)
    if (out->dtype() == core::dtype::int32)
      out->mutable_data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    else
      out->mutable_data<int64_t>()[static_cast<int64_t>(i)] = values[i];
}

void register_shape_kernels(kernel_registry& r) {
  r.add_any<fill_kernel>("Fill", device_type);
  r.add_typed<like<0>::kernel, bool, int32_t, int64_t, Eigen::half,
              Eigen::bfloat16, float, double>("ZerosLike", device_type);
  r.add_typed<like<1>::kernel, bool, int32_t, int64_t, Eigen::half,
              Eigen::bfloat16, float, double>("OnesLike", device_type);
  r.add_any<shape_query_kernel<shape_query::shape>>("Shape", device_type);
  r.add_any<shape_query_kernel<shape_query::shape>>("ShapeN", device_type);
  r.add_any<shape_query_kernel<shape_query::rank>>("Rank", device_type);
  r.add_any<shape_query_kernel<shape_query::size>>("Size", device_type);
  r.add_any<reshape_kernel>("Reshape", device_type);
  r.add_any<expand_dims_kernel>("ExpandDims", device_type);
  r.add_any<squeeze_kernel>("Squeeze", device_type);
  r.add_typed<range_kernel, int32_t, int64_t, float, double>(
    "Range", device_type, "Tidx");
  r.add_typed<one_hot_kernel, bool, int32_t, int64_t, float, double>(
    "OneHot", device_type);
}

void register_shape_handles(kernel_registry& r, const std::string& dev) {
  memory_spec out;
  out.host_outputs = {0};
  add_handle_kernel<shape_query_kernel<shape_query::shape>>(r, "Shape", dev,
                                                            "T", out);
  add_handle_kernel<shape_query_kernel<shape_query::rank>>(r, "Rank", dev, "T",
                                                           out);
  add_handle_kernel<shape_query_kernel<shape_query::size>>(r, "Size", dev, "T",
                                                           out);
  memory_spec second;
  second.host_inputs = {1};
  add_handle_kernel<reshape_kernel>(r, "Reshape", dev, "T", second);
  add_handle_kernel<expand_dims_kernel>(r, "ExpandDims", dev, "T", second);
  add_handle_kernel<squeeze_kernel>(r, "Squeeze", dev, "T", {});
}

} // namespace actorflow::ops::cpu
