// Neural-network kernels over rows: Softmax, LogSoftmax, BiasAdd, the
// cross-entropy losses, L2Loss, TopK, InTopK, LeakyRelu, CheckNumerics
// and Assert (batch norm: batch_norm_kernels.cpp).

#include "kernels.hpp"
#include "parallel_split.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <unsupported/Eigen/CXX11/Tensor>

namespace actorflow::ops::cpu {

namespace {

/// One row of `n` as an Eigen array.
template <class T>
using row_map = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

/// Writes log(softmax(x)) of one row of `n` into `out` (stable: the row's
/// maximum is subtracted first).
template <class T>
void log_softmax_row(const T* x, int64_t n, T* out) {
  row_map<T> in{x, n};
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> z{out, n};
  T max = in.maxCoeff();
  T log_sum = std::log((in - max).exp().sum());
  z = in - (max + log_sum);
}

/// Writes softmax(x) of one row of `n` into `out`: exp(x - max) once,
/// then scaled by its sum (TensorFlow's order of work). Eigen's vectorised
/// exp clamps its argument, so exp(-1e9) would be a denormal, not 0: what
/// would be denormal is 0 (as in TensorFlow, whose threads flush
/// denormals), and a masked logit's probability is exactly 0.
template <class T>
void softmax_row(const T* x, int64_t n, T* out) {
  row_map<T> in{x, n};
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> z{out, n};
  T max = in.maxCoeff();
  z = (in - max).exp();
  static const T smallest = std::log(std::numeric_limits<T>::min());
  for (int64_t j = 0; j < n; ++j)
    out[j] = x[j] - max < smallest ? T(0) : out[j];
  z *= T(1) / z.sum();
}

/// Softmax and LogSoftmax over the last dimension, the rows cut over the
/// device's pool when there are enough of them.
template <class T, bool Log>
class softmax_kernel : public basic_kernel {
public:
  explicit softmax_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(
      ctx, x.shape().rank() >= 1,
      core::invalid_argument_error("softmax needs rank >= 1, got a scalar"));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, x.shape(), &out));
    auto n = x.shape().dim(x.shape().rank() - 1);
    if (n == 0)
      return;
    const T* xp = x.data<T>();
    T* z = out->mutable_data<T>();
    auto rows = [&](int64_t first, int64_t last) {
      for (int64_t r = first; r < last; ++r) {
        if constexpr (Log)
          log_softmax_row(xp + r * n, n, z + r * n);
        else
          softmax_row(xp + r * n, n, z + r * n);
      }
    };
    auto count = x.num_elements() / n;
    parallel_split{&ctx, x.num_elements() >= parallel_threshold && count > 1}
      .for_range(count, rows);
  }
};

template <bool Log>
struct softmax {
  template <class T>
  using kernel = softmax_kernel<T, Log>;
};

template <class T>
class bias_add_kernel : public cheap_kernel {
public:
  explicit bias_add_kernel(kernel_construction& ctx) {
    if (ctx.attr_or("data_format", std::string{"NHWC"}) != "NHWC")
      init_ = core::unimplemented_error("only data_format NHWC is supported");
  }

  void compute(kernel_context& ctx) override {
    const auto& v = ctx.input(0);
    const auto& b = ctx.input(1);
    auto rank = v.shape().rank();
    ACTORFLOW_OP_REQUIRES(
      ctx,
      rank >= 1 && b.shape().rank() == 1
        && b.shape().dim(0) == v.shape().dim(rank - 1),
      core::invalid_argument_error(
        "BiasAdd needs a bias vector as long as the last dimension of ",
        v.shape().to_string(), ", got ", b.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, v.shape(), &out));
    auto n = b.num_elements();
    if (n == 0)
      return;
    auto rows = v.num_elements() / n;
    Eigen::array<Eigen::Index, 2> bcast{rows, 1};
    Eigen::array<Eigen::Index, 2> as_row{1, n};
    auto z
      = out->mutable_flat<T>().reshape(Eigen::array<Eigen::Index, 2>{rows, n});
    auto x = v.flat<T>().reshape(Eigen::array<Eigen::Index, 2>{rows, n});
    auto expr = x + b.flat<T>().reshape(as_row).broadcast(bcast);
    if (v.num_elements() >= parallel_threshold)
      z.device(eigen_device(ctx)) = expr;
    else
      z = expr;
  }
};

/// Cross entropy of softmax(logits) against labels, per row, and its
/// gradient softmax - labels. Sparse labels are class indices.
template <class T, bool Sparse>
class xent_kernel : public basic_kernel {
public:
  explicit xent_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& logits = ctx.input(0);
    const auto& labels = ctx.input(1);
    const auto& s = logits.shape();
    ACTORFLOW_OP_REQUIRES(
      ctx, s.rank() == 2,
      core::invalid_argument_error("logits must be [batch, classes], got ",
                                   s.to_string()));
    auto want = Sparse ? core::shape{s.dim(0)} : s;
    ACTORFLOW_OP_REQUIRES(
      ctx, labels.shape() == want,
      core::invalid_argument_error("labels must be ", want.to_string(),
                                   " for logits ", s.to_string(), ", got ",
                                   labels.shape().to_string()));
    auto batch = s.dim(0), n = s.dim(1);
    std::vector<int64_t> classes;
    if constexpr (Sparse) {
      classes = read_ints(labels);
      for (int64_t r = 0; r < batch; ++r)
        ACTORFLOW_OP_REQUIRES(
          ctx,
          classes[static_cast<size_t>(r)] >= 0
            && classes[static_cast<size_t>(r)] < n,
          core::invalid_argument_error("labels[", r,
                                       "] = ", classes[static_cast<size_t>(r)],
                                       " is not a class in [0, ", n, ")"));
    }
    core::tensor *loss = nullptr, *backprop = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {batch}, &loss));
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(1, s, &backprop));
    const T* x = logits.data<T>();
    T* lp = loss->mutable_data<T>();
    T* bp = backprop->mutable_data<T>();
    for (int64_t r = 0; r < batch; ++r) {
      T* row = bp + r * n;
      log_softmax_row(x + r * n, n, row); // log-probabilities first
      T sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        T label;
        if constexpr (Sparse)
          label = j == classes[static_cast<size_t>(r)] ? T(1) : T(0);
        else
          label = labels.data<T>()[r * n + j];
        if (label != 0)
          sum -= label * row[j];
        row[j] = std::exp(row[j]) - label;
      }
      lp[r] = sum;
    }
  }
};

template <bool Sparse>
struct xent {
  template <class T>
  using kernel = xent_kernel<T, Sparse>;
};

template <class T>
class l2_loss_kernel : public cheap_kernel {
public:
  explicit l2_loss_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {}, &out));
    Eigen::Tensor<T, 0, Eigen::RowMajor> sum
      = ctx.input(0).flat<T>().square().sum();
    *out->mutable_data<T>() = sum() / T(2);
  }
};

/// The k largest entries of each row (by value, ties to the lower index)
/// and their indices. TopKV2 reads k from input 1, TopK from its attr.
template <class T>
class top_k_kernel : public basic_kernel {
public:
  explicit top_k_kernel(kernel_construction& ctx) {
    k_ = ctx.attr_or("k", int64_t{-1});
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    auto k = k_;
    if (ctx.num_inputs() == 2)
      ACTORFLOW_OP_REQUIRES_OK(ctx, read_scalar_int(ctx.input(1), "k", &k));
    int rank = x.shape().rank();
    ACTORFLOW_OP_REQUIRES(ctx, rank >= 1,
                          core::invalid_argument_error("TopK needs rank >= 1"));
    auto n = x.shape().dim(rank - 1);
    ACTORFLOW_OP_REQUIRES(
      ctx, k >= 0 && k <= n,
      core::invalid_argument_error("TopK k = ", k, " must be in [0, ", n,
                                   "] for input ", x.shape().to_string()));
    auto dims = x.shape().dims();
    dims.back() = k;
    core::tensor *values = nullptr, *indices = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{dims}, &values));
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(1, core::shape{dims}, &indices));
    if (n == 0)
      return;
    std::vector<int32_t> order(static_cast<size_t>(n));
    const T* xp = x.data<T>();
    for (int64_t r = 0, rows = x.num_elements() / n; r < rows; ++r) {
      const T* row = xp + r * n;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        [row](int32_t a, int32_t b) {
                          return row[a] > row[b] || (row[a] == row[b] && a < b);
                        });
      for (int64_t j = 0; j < k; ++j) {
        auto i = order[static_cast<size_t>(j)];
        values->mutable_data<T>()[r * k + j] = row[i];
        indices->mutable_data<int32_t>()[r * k + j] = i;
      }
    }
  }

private:
  int64_t k_;
};

/// Whether each row's target class is among its k largest predictions;
/// ties at the boundary count as in, non-finite rows and targets out of
/// range as out (TensorFlow's rules).
class in_top_k_kernel : public basic_kernel {
public:
  explicit in_top_k_kernel(kernel_construction& ctx) {
    k_ = ctx.attr_or("k", int64_t{-1});
  }

  void compute(kernel_context& ctx) override {
    const auto& p = ctx.input(0);
    auto targets = read_ints(ctx.input(1));
    auto k = k_;
    if (ctx.num_inputs() == 3)
      ACTORFLOW_OP_REQUIRES_OK(ctx, read_scalar_int(ctx.input(2), "k", &k));
    ACTORFLOW_OP_REQUIRES(
      ctx,
      p.shape().rank() == 2
        && static_cast<int64_t>(targets.size()) == p.shape().dim(0),
      core::invalid_argument_error(
        "InTopK needs predictions [batch, classes] and targets [batch], got ",
        p.shape().to_string(), " and ", ctx.input(1).shape().to_string()));
    auto batch = p.shape().dim(0), n = p.shape().dim(1);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, {batch}, &out));
    for (int64_t r = 0; r < batch; ++r) {
      const float* row = p.data<float>() + r * n;
      auto t = targets[static_cast<size_t>(r)];
      bool in = t >= 0 && t < n && std::isfinite(row[t]);
      int64_t larger = 0;
      for (int64_t j = 0; in && j < n; ++j) {
        if (!std::isfinite(row[j]))
          in = false;
        else if (row[j] > row[t])
          ++larger;
      }
      out->mutable_data<bool>()[r] = in && larger < k;
    }
  }

private:
  int64_t k_;
};

/// LeakyRelu (x where x > 0, alpha x elsewhere) and, with `Grad`,
/// LeakyReluGrad(gradients, features).
template <class T, bool Grad>
class leaky_relu_kernel : public cheap_kernel {
public:
  explicit leaky_relu_kernel(kernel_construction& ctx) {
    alpha_ = static_cast<T>(ctx.attr_or("alpha", 0.2));
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(Grad ? 1 : 0);
    const auto& g = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(
      ctx, g.shape() == x.shape(),
      core::invalid_argument_error("LeakyReluGrad needs gradients and "
                                   "features of one shape, got ",
                                   g.shape().to_string(), " and ",
                                   x.shape().to_string()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.forward_input_or_allocate_output(0, 0, x.shape(), &out));
    const T* xp = x.data<T>();
    const T* gp = g.data<T>();
    T* y = out->template mutable_data<T>();
    for (int64_t i = 0, n = x.num_elements(); i < n; ++i)
      y[i] = xp[i] > T(0) ? gp[i] : alpha_ * gp[i];
  }

private:
  T alpha_;
};

template <bool Grad>
struct leaky_relu {
  template <class T>
  using kernel = leaky_relu_kernel<T, Grad>;
};

/// Passes its input on unless it holds a NaN or an infinity; the error
/// names the first bad index and the node's message.
template <class T>
class check_numerics_kernel : public cheap_kernel {
public:
  explicit check_numerics_kernel(kernel_construction& ctx) {
    message_ = ctx.attr_or("message", std::string{});
  }

  void compute(kernel_context& ctx) override {
    const auto& x = ctx.input(0);
    const T* xp = x.data<T>();
    for (int64_t i = 0, n = x.num_elements(); i < n; ++i) {
      auto v = static_cast<float>(xp[i]);
      if (!std::isfinite(v)) {
        ctx.fail(core::invalid_argument_error(
          message_.empty() ? "" : message_ + ": ", "tensor had ",
          std::isnan(v) ? "NaN" : "Inf", " values, first at flat index ", i,
          " of shape ", x.shape().to_string()));
        return;
      }
    }
    ctx.set_output(0, x);
  }

private:
  std::string message_;
};

/// Assert: fails the step unless its condition holds, with the data
/// tensors (up to `summarize` elements of each) in the message.
class assert_kernel : public cheap_kernel {
public:
  explicit assert_kernel(kernel_construction& ctx) {
    summarize_ = ctx.attr_or("summarize", int64_t{3});
  }

  void compute(kernel_context& ctx) override {
    const auto& c = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(
      ctx, c.dtype() == core::dtype::bool_ && c.num_elements() == 1,
      core::invalid_argument_error("Assert needs a scalar bool condition, got ",
                                   c.debug_string(2)));
    if (c.scalar_value<bool>())
      return;
    std::string data;
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
      data += (i > 1 ? " " : "") + std::string{"["}
              + ctx.input(i).debug_string(summarize_) + "]";
    ctx.fail(core::invalid_argument_error("assertion failed: ", data));
  }

private:
  int64_t summarize_;
};

} // namespace

void register_nn_kernels(kernel_registry& r) {
  r.add_any<assert_kernel>("Assert", device_type);
  r.add_typed<softmax<false>::kernel, float, double>("Softmax", device_type);
  r.add_typed<softmax<true>::kernel, float, double>("LogSoftmax", device_type);
  r.add_typed<bias_add_kernel, float, double, int32_t, int64_t>("BiasAdd",
                                                                device_type);
  r.add_typed<xent<false>::kernel, float, double>(
    "SoftmaxCrossEntropyWithLogits", device_type);
  r.add_typed<xent<true>::kernel, float, double>(
    "SparseSoftmaxCrossEntropyWithLogits", device_type);
  r.add_typed<l2_loss_kernel, float, double>("L2Loss", device_type);
  r.add_typed<top_k_kernel, float, double, int32_t, int64_t>("TopKV2",
                                                             device_type);
  r.add_typed<top_k_kernel, float, double, int32_t, int64_t>("TopK",
                                                             device_type);
  r.add_any<in_top_k_kernel>("InTopKV2", device_type);
  r.add_any<in_top_k_kernel>("InTopK", device_type);
  r.add_typed<leaky_relu<false>::kernel, float, double>("LeakyRelu",
                                                        device_type);
  r.add_typed<leaky_relu<true>::kernel, float, double>("LeakyReluGrad",
                                                       device_type);
  r.add_typed<check_numerics_kernel, Eigen::half, Eigen::bfloat16, float,
              double>("CheckNumerics", device_type);
}

} // namespace actorflow::ops::cpu
