// The segment reductions on rows (rows.hpp): UnsortedSegmentSum, Max, Min
// and Prod reduce the rows of each id into a [num_segments, ...] result
// (a negative id drops its row, an empty segment holds the reduction's
// identity); SegmentSum and SegmentMean take sorted ids of the first
// dimension and as many segments as the last id says (an empty one is 0).

#include <algorithm>
#include <limits>

#include "kernels.hpp"
#include "rows.hpp"

namespace actorflow::ops::cpu {

namespace {

struct sum_op {
  template <class T>
  static constexpr T identity() {
    return T{0};
  }
  template <class T>
  static void combine(T& acc, T v) {
    acc += v;
  }
};

struct prod_op {
  template <class T>
  static constexpr T identity() {
    return T{1};
  }
  template <class T>
  static void combine(T& acc, T v) {
    acc *= v;
  }
};

struct max_op {
  template <class T>
  static constexpr T identity() {
    return std::numeric_limits<T>::lowest();
  }
  template <class T>
  static void combine(T& acc, T v) {
    acc = std::max(acc, v);
  }
};

struct min_op {
  template <class T>
  static constexpr T identity() {
    return std::numeric_limits<T>::max();
  }
  template <class T>
  static void combine(T& acc, T v) {
    acc = std::min(acc, v);
  }
};

/// Fills `out` (segments x inner) with the identity and folds row i of
/// `data` into row ids[i] (negative ids skipped).
template <class T, class Op>
void reduce_rows(const T* data, const std::vector<int64_t>& ids, int64_t inner,
                 T* out, int64_t out_elements) {
  std::fill_n(out, out_elements, Op::template identity<T>());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0)
      continue;
    const T* row = data + static_cast<int64_t>(i) * inner;
    T* to = out + ids[i] * inner;
    for (int64_t e = 0; e < inner; ++e)
      Op::combine(to[e], row[e]);
  }
}

/// UnsortedSegment<Op>: inputs data, segment_ids, num_segments.
template <class T, class Op>
class unsorted_segment_kernel : public basic_kernel {
public:
  explicit unsorted_segment_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    const auto& data = ctx.input(0);
    const auto& ids_in = ctx.input(1);
    int64_t segments = 0;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_int(ctx.input(2), "num_segments", &segments));
    ACTORFLOW_OP_REQUIRES(ctx, segments >= 0,
                          core::invalid_argument_error(
                            "num_segments = ", segments, " is negative"));
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_prefix(ids_in.shape(), data.shape(),
                                               "segment_ids'", "data's"));
    auto ids = read_ints(ids_in);
    for (size_t i = 0; i < ids.size(); ++i)
      ACTORFLOW_OP_REQUIRES(ctx, ids[i] < segments,
                            core::invalid_argument_error(
                              "segment_ids[", i, "] = ", ids[i],
                              " is not below num_segments = ", segments));
    auto skip = ids_in.shape().rank();
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      ctx.allocate_output(0, rows_shape(segments, data.shape(), skip), &out));
    reduce_rows<T, Op>(data.data<T>(), ids, row_size(data.shape(), skip),
                       out->mutable_data<T>(), out->num_elements());
  }
};

/// Segment<Op> (sum, or the mean with `Mean`): inputs data and sorted
/// segment_ids of data's first dimension.
template <class T, class Op, bool Mean>
class sorted_segment_kernel : public basic_kernel {
public:
  explicit sorted_segment_kernel(kernel_construction&) {
  }

  void compute(kernel_context& ctx) override {
    const auto& data = ctx.input(0);
    const auto& ids_in = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx,
      ids_in.shape().rank() == 1 && data.shape().rank() >= 1
        && ids_in.shape().dim(0) == data.shape().dim(0),
      core::invalid_argument_error(
        "segment_ids must be a vector of data's first dimension, got shape ",
        ids_in.shape().to_string(), " for data of shape ",
        data.shape().to_string()));
    auto ids = read_ints(ids_in);
    for (size_t i = 0; i < ids.size(); ++i)
      ACTORFLOW_OP_REQUIRES(
        ctx, ids[i] >= 0 && (i == 0 || ids[i] >= ids[i - 1]),
        core::invalid_argument_error(
          "segment_ids must be sorted and non-negative: segment_ids[", i,
          "] = ", ids[i], i == 0 ? "" : " after ",
          i == 0 ? "" : std::to_string(ids[i - 1])));
    auto segments = ids.empty() ? 0 : ids.back() + 1;
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, rows_shape(segments, data.shape(), 1), &out));
    auto inner = row_size(data.shape(), 1);
    T* dst = out->mutable_data<T>();
    reduce_rows<T, Op>(data.data<T>(), ids, inner, dst, out->num_elements());
    if constexpr (Mean) {
      // The ids are sorted: each segment's rows are one run.
      for (size_t i = 0, j = 0; i < ids.size(); i = j) {
        while (j < ids.size() && ids[j] == ids[i])
          ++j;
        auto count = static_cast<T>(j - i);
        T* row = dst + ids[i] * inner;
        for (int64_t e = 0; e < inner; ++e)
          row[e] /= count;
      }
    }
  }
};

template <class Op>
struct unsorted {
  template <class T>
  using kernel = unsorted_segment_kernel<T, Op>;
};

template <bool Mean>
struct sorted {
  template <class T>
  using kernel = sorted_segment_kernel<T, sum_op, Mean>;
};

template <template <class> class K>
void add_numbers(kernel_registry& r, const char* op) {
  r.add_typed<K, float, double, int32_t, int64_t>(op, device_type);
}

} // namespace

void register_segment_kernels(kernel_registry& r) {
  add_numbers<unsorted<sum_op>::kernel>(r, "UnsortedSegmentSum");
  add_numbers<unsorted<prod_op>::kernel>(r, "UnsortedSegmentProd");
  add_numbers<unsorted<max_op>::kernel>(r, "UnsortedSegmentMax");
  add_numbers<unsorted<min_op>::kernel>(r, "UnsortedSegmentMin");
  add_numbers<sorted<false>::kernel>(r, "SegmentSum");
  add_numbers<sorted<true>::kernel>(r, "SegmentMean");
}

} // namespace actorflow::ops::cpu
