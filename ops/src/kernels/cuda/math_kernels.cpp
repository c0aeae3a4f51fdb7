// Element-wise GPU kernels (binary with broadcasting, unary, Cast, Fill,
// ZerosLike/OnesLike) and the reductions.

#include "../common/checks.hpp"
#include "actorflow/ops/shape_context.hpp"
#include "gpu_kernels.hpp"

namespace actorflow::ops::gpu {

namespace {

/// Folds the broadcast of `x` to `y` into at most `max_rank` dimensions:
/// dimensions where both operands step alike are merged.
core::status fold(const core::shape& x, const core::shape& y,
                  const core::shape& out, broadcast_index* ix) {
  int rank = out.rank();
  auto dim_of = [rank](const core::shape& s, int d) {
    int off = rank - s.rank();
    return d < off ? int64_t{1} : s.dim(d - off);
  };
  std::vector<int64_t> dims;
  std::vector<int> kinds; // bit 0: x broadcast, bit 1: y broadcast
  for (int d = 0; d < rank; ++d) {
    auto n = out.dim(d);
    if (n == 1)
      continue;
    int kind = (dim_of(x, d) == 1 ? 1 : 0) | (dim_of(y, d) == 1 ? 2 : 0);
    if (!dims.empty() && kinds.back() == kind)
      dims.back() *= n;
    else {
      dims.push_back(n);
      kinds.push_back(kind);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    kinds.push_back(0);
  }
  if (static_cast<int>(dims.size()) > max_rank)
    return core::unimplemented_error("broadcasting ", x.to_string(), " with ",
                                     y.to_string(), " needs more than ",
                                     max_rank, " dimensions on a GPU");
  ix->rank = static_cast<int>(dims.size());
  int64_t xs = 1;
  int64_t ys = 1;
  for (int d = ix->rank - 1; d >= 0; --d) {
    auto k = static_cast<size_t>(d);
    ix->dims[d] = dims[k];
    ix->x_strides[d] = (kinds[k] & 1) ? 0 : xs;
    ix->y_strides[d] = (kinds[k] & 2) ? 0 : ys;
    if (!(kinds[k] & 1))
      xs *= dims[k];
    if (!(kinds[k] & 2))
      ys *= dims[k];
  }
  return core::status::ok();
}

template <binary_fn Fn>
struct binary_op {
  template <class T>
  class kernel : public cheap_kernel {
  public:
    explicit kernel(kernel_construction&) {
      // nop
    }

    void compute(kernel_context& ctx) override {
      const auto& x = ctx.input(0);
      const auto& y = ctx.input(1);
      core::shape out_shape;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, broadcast_shapes(x.shape(), y.shape(), &out_shape));
      broadcast_index ix;
      ACTORFLOW_OP_REQUIRES_OK(ctx, fold(x.shape(), y.shape(), out_shape, &ix));
      core::tensor* z = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &z));
      elem type;
      ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
      auto& dev = device_of(ctx);
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, launched(binary(Fn, type, x.raw_data(), y.raw_data(),
                             z->raw_mutable_data(), z->num_elements(), ix,
                             dev.compute_stream()),
                      "binary kernel"));
    }
  };
};

template <unary_fn Fn>
struct unary_op {
  template <class T>
  class kernel : public cheap_kernel {
  public:
    explicit kernel(kernel_construction&) {
      // nop
    }

    void compute(kernel_context& ctx) override {
      const auto& x = ctx.input(0);
      core::tensor* y = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, ctx.forward_input_or_allocate_output(0, 0, x.shape(), &y));
      elem type;
      ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
      auto& dev = device_of(ctx);
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, launched(unary(Fn, type, x.raw_data(), y->raw_mutable_data(),
                            x.num_elements(), dev.compute_stream()),
                      "unary kernel"));
    }
  };
};

/// Cast: SrcT to DstT, any of the GPU's element types.
class cast_kernel : public cheap_kernel {
public:
  explicit cast_kernel(kernel_construction& ctx) {
    core::dtype src;
    core::dtype dst;
    init_ = ctx.get_attr("SrcT", &src);
    if (init_.is_ok())
      init_ = ctx.get_attr("DstT", &dst);
    if (init_.is_ok())
      init_ = elem_of(src, &from_);
    if (init_.is_ok())
      init_ = elem_of(dst, &to_);
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    core::tensor* y = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, x.shape(), &y));
    auto& dev = device_of(ctx);
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(cast(from_, to_, x.raw_data(), y->raw_mutable_data(),
                         x.num_elements(), dev.compute_stream()),
                    "Cast"));
  }

private:
  elem from_ = elem::f32;
  elem to_ = elem::f32;
};

/// Fills output 0 of shape `s` with the host value at `value`.
void fill_output(kernel_context& ctx, const core::shape& s, const void* value) {
  core::tensor* y = nullptr;
  ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, s, &y));
  elem type;
  ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(y->dtype(), &type));
  auto& dev = device_of(ctx);
  ACTORFLOW_OP_REQUIRES_OK(
    ctx, launched(fill(type, value, y->raw_mutable_data(), y->num_elements(),
                       dev.compute_stream()),
                  "fill"));
}

/// Fill: dims and value in host memory.
class fill_kernel : public cheap_kernel {
public:
  explicit fill_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& dims = ctx.input(0);
    const auto& value = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, dims.shape().rank() == 1,
      core::invalid_argument_error("dims must be a vector, got shape ",
                                   dims.shape().to_string()));
    ACTORFLOW_OP_REQUIRES(
      ctx, value.num_elements() == 1,
      core::invalid_argument_error("value must be a scalar, got shape ",
                                   value.shape().to_string()));
    auto d = common::read_ints(dims);
    for (auto n : d)
      ACTORFLOW_OP_REQUIRES(
        ctx, n >= 0,
        core::invalid_argument_error("dims must not be negative, got ", n));
    fill_output(ctx, core::shape{d}, value.raw_data());
  }
};

template <int Value>
struct constant_like {
  template <class T>
  class kernel : public cheap_kernel {
  public:
    explicit kernel(kernel_construction&) {
      // nop
    }

    void compute(kernel_context& ctx) override {
      T value = static_cast<T>(static_cast<float>(Value));
      fill_output(ctx, ctx.input(0).shape(), &value);
    }
  };
};

/// Sum, Mean, Max, Min, Prod over the axes of input 1 (host memory), in
/// one launch when the axes are adjacent and one per axis otherwise.
template <reduce_fn Fn>
struct reduce_op {
  template <class T>
  class kernel : public basic_kernel {
  public:
    explicit kernel(kernel_construction& ctx) {
      keep_dims_ = ctx.attr_or("keep_dims", false);
    }

    void compute(kernel_context& ctx) override {
      const auto& x = ctx.input(0);
      const auto& axes_t = ctx.input(1);
      ACTORFLOW_OP_REQUIRES(
        ctx, axes_t.shape().rank() <= 1,
        core::invalid_argument_error("reduction_indices must be a scalar or a "
                                     "vector, got shape ",
                                     axes_t.shape().to_string()));
      core::shape out_shape;
      std::vector<bool> reduced;
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, reduced_shape(x.shape(), common::read_ints(axes_t), keep_dims_,
                           &out_shape, &reduced));
      core::tensor* out = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, out_shape, &out));
      auto& dev = device_of(ctx);
      auto stream = dev.compute_stream();
      // Dimensions with reduced ones merged into runs: [kept, reduced, ...].
      std::vector<int64_t> dims;
      std::vector<bool> run_reduced;
      for (int d = 0; d < x.shape().rank(); ++d) {
        auto n = x.shape().dim(d);
        bool r = reduced[static_cast<size_t>(d)];
        if (n == 1)
          continue;
        if (!dims.empty() && run_reduced.back() == r)
          dims.back() *= n;
        else {
          dims.push_back(n);
          run_reduced.push_back(r);
        }
      }
      if (x.num_elements() == 0 || out->num_elements() == 0
          || std::find(run_reduced.begin(), run_reduced.end(), true)
               == run_reduced.end()) {
        // Nothing reduced (or nothing to reduce): the identity or a copy.
        if (x.num_elements() == out->num_elements()) {
          ACTORFLOW_OP_REQUIRES_OK(
            ctx, launched(cudaMemcpyAsync(out->raw_mutable_data(), x.raw_data(),
                                          x.bytes(), cudaMemcpyDeviceToDevice,
                                          stream),
                          "reduction copy"));
        } else {
          T init = Fn == reduce_fn::prod   ? T(1)
                   : Fn == reduce_fn::max  ? -std::numeric_limits<T>::infinity()
                   : Fn == reduce_fn::min  ? std::numeric_limits<T>::infinity()
                   : Fn == reduce_fn::mean ? std::numeric_limits<T>::quiet_NaN()
                                           : T(0);
          fill_output(ctx, out_shape, &init);
        }
        return;
      }
      // Reduce the runs from the last one on, each in one launch.
      core::tensor current = x;
      for (size_t k = dims.size(); k-- > 0;) {
        if (!run_reduced[k])
          continue;
        int64_t outer = 1;
        for (size_t j = 0; j < k; ++j)
          outer *= dims[j];
        int64_t inner = 1;
        for (size_t j = k + 1; j < dims.size(); ++j)
          inner *= dims[j];
        bool last = std::find(run_reduced.begin(),
                              run_reduced.begin() + static_cast<long>(k), true)
                    == run_reduced.begin() + static_cast<long>(k);
        core::tensor next;
        if (last) {
          next = *out;
        } else {
          ACTORFLOW_OP_REQUIRES_OK(
            ctx, core::tensor::make(dev.allocator(core::memory_type::device),
                                    core::dtype_v<T>,
                                    core::shape{outer * inner}, &next));
        }
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, reduce_on(dev, Fn, current, next, outer, dims[k], inner));
        current = next;
        dims[k] = 1;
      }
    }

  private:
    bool keep_dims_ = false;
  };
};

/// Registers for float and double, and for half and bfloat16 where the
/// op takes them (`halves`).
template <binary_fn Fn>
void add_binary(kernel_registry& r, const char* op, bool halves = false) {
  if (halves)
    r.add_typed<binary_op<Fn>::template kernel, Eigen::half, Eigen::bfloat16>(
      op, device_type);
  r.add_typed<binary_op<Fn>::template kernel, float, double>(op, device_type);
}

template <unary_fn Fn>
void add_unary(kernel_registry& r, const char* op, bool halves = false) {
  if (halves)
    r.add_typed<unary_op<Fn>::template kernel, Eigen::half, Eigen::bfloat16>(
      op, device_type);
  r.add_typed<unary_op<Fn>::template kernel, float, double>(op, device_type);
}

template <reduce_fn Fn>
void add_reduce(kernel_registry& r, const char* op) {
  r.add_typed<reduce_op<Fn>::template kernel, float, double>(
    op, device_type, "T", host_memory({1}, {}));
}

} // namespace

void register_math_kernels(kernel_registry& r) {
  add_binary<binary_fn::add>(r, "Add", true);
  add_binary<binary_fn::add>(r, "AddV2", true);
  add_binary<binary_fn::sub>(r, "Sub", true);
  add_binary<binary_fn::mul>(r, "Mul", true);
  add_binary<binary_fn::div>(r, "RealDiv");
  add_binary<binary_fn::div>(r, "Div");
  add_binary<binary_fn::maximum>(r, "Maximum");
  add_binary<binary_fn::minimum>(r, "Minimum");
  add_binary<binary_fn::pow>(r, "Pow");
  add_binary<binary_fn::less>(r, "Less");
  add_binary<binary_fn::less_equal>(r, "LessEqual");
  add_binary<binary_fn::greater>(r, "Greater");
  add_binary<binary_fn::greater_equal>(r, "GreaterEqual");
  add_binary<binary_fn::equal>(r, "Equal");
  add_binary<binary_fn::not_equal>(r, "NotEqual");
  add_binary<binary_fn::relu_grad>(r, "ReluGrad");
  add_binary<binary_fn::tanh_grad>(r, "TanhGrad");
  add_binary<binary_fn::sigmoid_grad>(r, "SigmoidGrad");
  add_unary<unary_fn::neg>(r, "Neg");
  add_unary<unary_fn::abs>(r, "Abs");
  add_unary<unary_fn::exp>(r, "Exp");
  add_unary<unary_fn::log>(r, "Log");
  add_unary<unary_fn::sqrt>(r, "Sqrt");
  add_unary<unary_fn::rsqrt>(r, "Rsqrt");
  add_unary<unary_fn::square>(r, "Square");
  add_unary<unary_fn::tanh>(r, "Tanh");
  add_unary<unary_fn::sigmoid>(r, "Sigmoid");
  add_unary<unary_fn::relu>(r, "Relu");
  add_unary<unary_fn::relu6>(r, "Relu6");
  add_unary<unary_fn::sign>(r, "Sign");
  add_unary<unary_fn::floor>(r, "Floor");
  add_unary<unary_fn::ceil>(r, "Ceil");
  add_unary<unary_fn::log1p>(r, "Log1p");
  for (auto t : {core::dtype::float16, core::dtype::bfloat16,
                 core::dtype::float32, core::dtype::float64, core::dtype::int32,
                 core::dtype::int64, core::dtype::bool_, core::dtype::uint8})
    r.add("Cast", device_type, t, &kernel_registry::make_kernel<cast_kernel>,
          "SrcT");
  r.add_any<fill_kernel>("Fill", device_type, host_memory({0, 1}, {}));
  r.add_typed<constant_like<0>::kernel, ACTORFLOW_GPU_FLOAT_TYPES>("ZerosLike",
                                                                   device_type);
  r.add_typed<constant_like<1>::kernel, ACTORFLOW_GPU_FLOAT_TYPES>("OnesLike",
                                                                   device_type);
  add_reduce<reduce_fn::sum>(r, "Sum");
  add_reduce<reduce_fn::mean>(r, "Mean");
  add_reduce<reduce_fn::max>(r, "Max");
  add_reduce<reduce_fn::min>(r, "Min");
  add_reduce<reduce_fn::prod>(r, "Prod");
}

} // namespace actorflow::ops::gpu
