// ScalarSummary, HistogramSummary, MergeSummary: serialized TensorFlow
// `Summary` protocol buffers (ops/proto/summary.proto) in a scalar string.

#include "kernels.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <set>

#include "summary.pb.h"

namespace actorflow::ops::cpu {

namespace {

/// Reads every element of `t` (a real number type) as a double.
std::vector<double> as_doubles(const core::tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.num_elements()));
  core::visit_dtype(t.dtype(), [&](auto x) {
    using T = decltype(x);
    if constexpr (std::is_arithmetic_v<T>) {
      const auto* src = t.data<T>();
      for (size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<double>(src[i]);
    }
  });
  return out;
}

/// Writes `summary` into the kernel's scalar string output.
void emit(kernel_context& ctx, const tfproto::Summary& summary) {
  core::tensor* out = nullptr;
  ACTORFLOW_OP_REQUIRES_OK(ctx, ctx.allocate_output(0, core::shape{}, &out));
  if (!summary.SerializeToString(out->mutable_data<std::string>()))
    ctx.fail(core::internal_error("serializing the summary failed"));
}

class scalar_summary_kernel : public basic_kernel {
public:
  explicit scalar_summary_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    const auto& tags = ctx.input(0);
    const auto& values = ctx.input(1);
    if (tags.shape() != values.shape()) {
      ctx.fail(core::invalid_argument_error(
        "tags and values must have the same shape, got ",
        tags.shape().to_string(), " and ", values.shape().to_string()));
      return;
    }
    auto xs = as_doubles(values);
    tfproto::Summary summary;
    const auto* names = tags.data<std::string>();
    for (size_t i = 0; i < xs.size(); ++i) {
      auto* v = summary.add_value();
      v->set_tag(names[i]);
      v->set_simple_value(static_cast<float>(xs[i]));
    }
    emit(ctx, summary);
  }
};

/// TensorFlow's default histogram bucket limits: ±1e-12 growing by 10 %
/// to ±1e20, then ±DBL_MAX, and 0 between the negative and the positive.
const std::vector<double>& default_bucket_limits() {
  static const std::vector<double> limits = [] {
    std::vector<double> positive;
    for (double v = 1e-12; v < 1e20; v *= 1.1)
      positive.push_back(v);
    positive.push_back(DBL_MAX);
    std::vector<double> all;
    for (auto i = positive.rbegin(); i != positive.rend(); ++i)
      all.push_back(-*i);
    all.push_back(0.0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return limits;
}

/// The histogram of `xs` as TensorBoard reads it: bucket i counts the
/// values below limit i and at least limit i-1; runs of empty buckets are
/// merged into one.
void fill_histogram(const std::vector<double>& xs, tfproto::HistogramProto* h) {
  const auto& limits = default_bucket_limits();
  std::vector<double> counts(limits.size(), 0.0);
  double lo = DBL_MAX, hi = -DBL_MAX, sum = 0, sum_squares = 0;
  for (auto x : xs) {
    auto b = std::upper_bound(limits.begin(), limits.end(), x) - limits.begin();
    counts[static_cast<size_t>(
      std::min<ptrdiff_t>(b, static_cast<ptrdiff_t>(limits.size()) - 1))]
      += 1;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    sum += x;
    sum_squares += x * x;
  }
  h->set_min(lo);
  h->set_max(hi);
  h->set_num(static_cast<double>(xs.size()));
  h->set_sum(sum);
  h->set_sum_squares(sum_squares);
  for (size_t i = 0; i < counts.size();) {
    double limit = limits[i];
    double count = counts[i++];
    if (count == 0)
      while (i < counts.size() && counts[i] == 0)
        limit = limits[i++];
    h->add_bucket_limit(limit);
    h->add_bucket(count);
  }
}

class histogram_summary_kernel : public basic_kernel {
public:
  explicit histogram_summary_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    const auto& tag = ctx.input(0);
    if (tag.shape().rank() != 0) {
      ctx.fail(core::invalid_argument_error("tag must be a scalar, got shape ",
                                            tag.shape().to_string()));
      return;
    }
    auto xs = as_doubles(ctx.input(1));
    const auto& name = tag.scalar_value<std::string>();
    for (auto x : xs)
      if (!std::isfinite(x)) {
        ctx.fail(core::invalid_argument_error(
          "a NaN or infinity in the values of histogram '", name, "'"));
        return;
      }
    tfproto::Summary summary;
    auto* v = summary.add_value();
    v->set_tag(name);
    fill_histogram(xs, v->mutable_histo());
    emit(ctx, summary);
  }
};

class merge_summary_kernel : public basic_kernel {
public:
  explicit merge_summary_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    tfproto::Summary merged;
    std::set<std::string> tags;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const auto& in = ctx.input(i);
      const auto* texts = in.data<std::string>();
      for (int64_t k = 0; k < in.num_elements(); ++k) {
        tfproto::Summary part;
        if (!part.ParseFromString(texts[k])) {
          ctx.fail(core::invalid_argument_error(
            "input ", i, " is not a serialized Summary"));
          return;
        }
        for (auto& v : *part.mutable_value()) {
          if (!v.tag().empty() && !tags.insert(v.tag()).second) {
            ctx.fail(core::invalid_argument_error(
              "tag '", v.tag(), "' is in more than one of the summaries"));
            return;
          }
          merged.add_value()->Swap(&v);
        }
      }
    }
    emit(ctx, merged);
  }
};

} // namespace

void register_summary_kernels(kernel_registry& r) {
  r.add_any<scalar_summary_kernel>("ScalarSummary", device_type);
  r.add_any<histogram_summary_kernel>("HistogramSummary", device_type);
  r.add_any<merge_summary_kernel>("MergeSummary", device_type);
}

} // namespace actorflow::ops::cpu
