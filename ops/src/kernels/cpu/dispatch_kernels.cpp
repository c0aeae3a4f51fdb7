// DynamicPartition and DynamicStitch on rows (rows.hpp): a mixture of
// experts' dispatch and combine.

#include "element_copy.hpp"
#include "kernels.hpp"
#include "rows.hpp"

namespace actorflow::ops::cpu {

namespace {

/// DynamicPartition: row i of `data` goes to output partitions[i], the
/// rows of each output in their order in `data`.
class dynamic_partition_kernel : public basic_kernel {
public:
  explicit dynamic_partition_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("num_partitions", &n_);
  }

  void compute(kernel_context& ctx) override {
    const auto& data = ctx.input(0);
    const auto& partitions = ctx.input(1);
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_prefix(partitions.shape(), data.shape(),
                                               "partitions'", "data's"));
    auto p = read_ints(partitions);
    std::vector<int64_t> counts(static_cast<size_t>(n_), 0);
    for (size_t i = 0; i < p.size(); ++i) {
      ACTORFLOW_OP_REQUIRES(
        ctx, p[i] >= 0 && p[i] < n_,
        core::invalid_argument_error("partitions[", i, "] = ", p[i],
                                     " is not in [0, ", n_, ")"));
      ++counts[static_cast<size_t>(p[i])];
    }
    auto skip = partitions.shape().rank();
    auto inner = row_size(data.shape(), skip);
    std::vector<core::tensor*> outs(static_cast<size_t>(n_));
    for (int64_t k = 0; k < n_; ++k)
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, ctx.allocate_output(
               static_cast<size_t>(k),
               rows_shape(counts[static_cast<size_t>(k)], data.shape(), skip),
               &outs[static_cast<size_t>(k)]));
    visit_storage(data.dtype(), [&](auto tag) {
      using U = decltype(tag);
      const U* src = data.data<U>();
      std::vector<int64_t> filled(static_cast<size_t>(n_), 0);
      for (size_t i = 0; i < p.size(); ++i) {
        auto k = static_cast<size_t>(p[i]);
        std::copy_n(src + static_cast<int64_t>(i) * inner, inner,
                    outs[k]->mutable_data<U>() + filled[k]++ * inner);
      }
    });
  }

private:
  int64_t n_ = 1;
};

/// DynamicStitch: row j of data[k] goes to row indices[k][j] of the
/// result, later ones over earlier ones; rows no index names are zeros.
class dynamic_stitch_kernel : public basic_kernel {
public:
  explicit dynamic_stitch_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    auto n = ctx.num_inputs() / 2;
    const auto& first = ctx.input(0);
    const auto& first_data = ctx.input(n);
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             check_prefix(first.shape(), first_data.shape(),
                                          "indices[0]'", "data[0]'s"));
    auto skip = first.shape().rank();
    auto inner = row_size(first_data.shape(), skip);
    std::vector<std::vector<int64_t>> indices(n);
    int64_t rows = 0;
    for (size_t k = 0; k < n; ++k) {
      const auto& idx = ctx.input(k);
      const auto& d = ctx.input(n + k);
      // data[k]'s shape is indices[k]'s and then data[0]'s rows'.
      auto want = idx.shape().dims();
      want.insert(want.end(), first_data.shape().dims().begin() + skip,
                  first_data.shape().dims().end());
      ACTORFLOW_OP_REQUIRES(ctx, d.shape() == core::shape{want},
                            core::invalid_argument_error(
                              "data[", k, "] has shape ", d.shape().to_string(),
                              ", indices[", k, "] ", idx.shape().to_string(),
                              " wants ", core::shape{want}.to_string()));
      indices[k] = read_ints(idx);
      for (size_t j = 0; j < indices[k].size(); ++j) {
        ACTORFLOW_OP_REQUIRES(
          ctx, indices[k][j] >= 0,
          core::invalid_argument_error("indices[", k, "][", j,
                                       "] = ", indices[k][j], " is negative"));
        rows = std::max(rows, indices[k][j] + 1);
      }
    }
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      ctx.allocate_output(0, rows_shape(rows, first_data.shape(), skip), &out));
    visit_storage(first_data.dtype(), [&](auto tag) {
      using U = decltype(tag);
      U* dst = out->mutable_data<U>();
      std::fill_n(dst, out->num_elements(), U{});
      for (size_t k = 0; k < n; ++k) {
        const U* src = ctx.input(n + k).template data<U>();
        for (size_t j = 0; j < indices[k].size(); ++j)
          std::copy_n(src + static_cast<int64_t>(j) * inner, inner,
                      dst + indices[k][j] * inner);
      }
    });
  }
};

} // namespace

void register_dispatch_kernels(kernel_registry& r) {
  r.add_any<dynamic_partition_kernel>("DynamicPartition", device_type);
  r.add_any<dynamic_stitch_kernel>("DynamicStitch", device_type);
  // TensorFlow's parallel form only leaves open which of two equal
  // indices wins; this one picks the later, as DynamicStitch does.
  r.add_any<dynamic_stitch_kernel>("ParallelDynamicStitch", device_type);
}

} // namespace actorflow::ops::cpu
