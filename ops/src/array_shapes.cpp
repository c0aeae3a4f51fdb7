#include "actorflow/ops/array_shapes.hpp"

#include <algorithm>

namespace actorflow::ops {

core::status reshape_shape(const core::shape& in,
                           const std::vector<int64_t>& requested,
                           core::shape* out) {
  int64_t product = 1;
  int inferred = -1;
  for (size_t i = 0; i < requested.size(); ++i) {
    auto d = requested[i];
    if (d == -1) {
      if (inferred >= 0)
        return core::invalid_argument_error(
          "Reshape can infer only one dimension (-1), got two");
      inferred = static_cast<int>(i);
    } else if (d < 0) {
      return core::invalid_argument_error("Reshape got a negative size ", d);
    } else {
      product *= d;
    }
  }
  std::vector<int64_t> dims = requested;
  auto n = in.num_elements();
  if (n < 0) { // not fully known: only the -1 stays open
    *out = core::shape{std::move(dims)};
    return core::status::ok();
  }
  if (inferred >= 0) {
    if (product == 0 || n % product != 0)
      return core::invalid_argument_error(
        "cannot reshape a tensor of ", n, " elements (", in.to_string(),
        ") into a shape with -1 and ", product, " other elements");
    dims[static_cast<size_t>(inferred)] = n / product;
  } else if (product != n) {
    return core::invalid_argument_error(
      "cannot reshape a tensor of ", n, " elements (", in.to_string(),
      ") into ", core::shape{requested}.to_string(), " (", product,
      " elements)");
  }
  *out = core::shape{std::move(dims)};
  return core::status::ok();
}

core::status concat_shape(const std::vector<core::shape>& in, int64_t axis,
                          core::shape* out) {
  int rank = -1;
  for (const auto& s : in)
    if (s.known_rank())
      rank = s.rank();
  if (rank < 0) {
    *out = core::shape::unknown();
    return core::status::ok();
  }
  if (axis < -rank || axis >= rank)
    return core::invalid_argument_error("concat axis ", axis,
                                        " is out of range for rank ", rank);
  auto a = static_cast<int>(axis < 0 ? axis + rank : axis);
  std::vector<int64_t> dims(static_cast<size_t>(rank), -1);
  int64_t total = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const auto& s = in[k];
    if (!s.known_rank()) {
      total = -1;
      continue;
    }
    if (s.rank() != rank)
      return core::invalid_argument_error("concat inputs need one rank; input ",
                                          k, " is ", s.to_string());
    for (int d = 0; d < rank; ++d) {
      auto& dim = dims[static_cast<size_t>(d)];
      if (d == a)
        continue;
      if (dim >= 0 && s.dim(d) >= 0 && dim != s.dim(d))
        return core::invalid_argument_error(
          "concat inputs differ in dimension ", d, " (input ", k, " is ",
          s.to_string(), ")");
      if (dim < 0)
        dim = s.dim(d);
    }
    total = total < 0 || s.dim(a) < 0 ? -1 : total + s.dim(a);
  }
  dims[static_cast<size_t>(a)] = total;
  *out = core::shape{std::move(dims)};
  return core::status::ok();
}

core::status transpose_shape(const core::shape& in,
                             const std::vector<int64_t>& perm,
                             core::shape* out) {
  auto rank = static_cast<int>(perm.size());
  if (in.known_rank() && in.rank() != rank)
    return core::invalid_argument_error("Transpose of a rank-", in.rank(),
                                        " tensor needs a permutation of ",
                                        in.rank(), " axes, got ", rank);
  std::vector<bool> seen(perm.size(), false);
  std::vector<int64_t> dims;
  for (auto p : perm) {
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)])
      return core::invalid_argument_error(
        "Transpose needs a permutation of 0..", rank - 1, ", got ",
        core::shape{perm}.to_string());
    seen[static_cast<size_t>(p)] = true;
    dims.push_back(in.known_rank() ? in.dim(static_cast<int>(p)) : -1);
  }
  *out = core::shape{std::move(dims)};
  return core::status::ok();
}

core::status plan_strided_slice(const core::shape& in,
                                const std::vector<int64_t>& begin,
                                const std::vector<int64_t>& end,
                                const std::vector<int64_t>& strides,
                                const strided_slice_masks& masks,
                                strided_slice_plan* plan) {
  auto n = begin.size();
  if (end.size() != n || strides.size() != n)
    return core::invalid_argument_error(
      "StridedSlice needs begin, end and strides of one length, got ", n, ", ",
      end.size(), " and ", strides.size());
  if ((masks.ellipsis & (masks.ellipsis - 1)) != 0)
    return core::invalid_argument_error(
      "StridedSlice allows one ellipsis, got mask ", masks.ellipsis);
  int rank = in.rank();
  // Spec entries that consume input dimensions.
  int consumed = 0;
  for (size_t i = 0; i < n; ++i)
    if (!((masks.new_axis >> i) & 1) && !((masks.ellipsis >> i) & 1))
      ++consumed;
  *plan = strided_slice_plan{};
  std::vector<int64_t> out_dims;
  int d = 0; // the input dimension
  auto full = [&](int dim) {
    plan->begin.push_back(0);
    plan->step.push_back(1);
    plan->count.push_back(in.dim(dim));
    out_dims.push_back(in.dim(dim));
  };
  for (size_t i = 0; i < n; ++i) {
    if ((masks.ellipsis >> i) & 1) {
      for (int k = 0, fill = rank - consumed; k < fill; ++k)
        full(d++);
      continue;
    }
    if ((masks.new_axis >> i) & 1) {
      out_dims.push_back(1);
      continue;
    }
    if (d >= rank)
      return core::invalid_argument_error("StridedSlice indexes ", consumed,
                                          " dimensions of a rank-", rank,
                                          " tensor");
    auto size = in.dim(d);
    auto step = strides[i];
    if (step == 0)
      return core::invalid_argument_error("StridedSlice stride ", i,
                                          " is zero");
    bool shrink = (masks.shrink_axis >> i) & 1;
    int64_t b = begin[i], e = end[i];
    if (shrink) {
      if (b < -size || b >= size)
        return core::invalid_argument_error("StridedSlice index ", b,
                                            " is out of range for dimension ",
                                            d, " of size ", size);
      plan->begin.push_back(b < 0 ? b + size : b);
      plan->step.push_back(1);
      plan->count.push_back(1);
      ++d;
      continue;
    }
    // Python's slice rules: negative indices count from the end, then
    // clamp into the range the step can reach.
    auto clamp = [&](int64_t x, bool masked, bool is_begin) {
      if (masked && is_begin)
        return step > 0 ? int64_t{0} : size - 1;
      if (masked)
        return step > 0 ? size : int64_t{-1};
      if (x < 0)
        x += size;
      return step > 0 ? std::clamp<int64_t>(x, 0, size)
                      : std::clamp<int64_t>(x, -1, size - 1);
    };
    b = clamp(b, (masks.begin >> i) & 1, true);
    e = clamp(e, (masks.end >> i) & 1, false);
    int64_t count
      = step > 0 ? (e - b + step - 1) / step : (b - e + (-step) - 1) / (-step);
    count = std::max<int64_t>(count, 0);
    plan->begin.push_back(count > 0 ? b : 0);
    plan->step.push_back(step);
    plan->count.push_back(count);
    out_dims.push_back(count);
    ++d;
  }
  while (d < rank)
    full(d++);
  plan->out = core::shape{std::move(out_dims)};
  return core::status::ok();
}

} // namespace actorflow::ops
