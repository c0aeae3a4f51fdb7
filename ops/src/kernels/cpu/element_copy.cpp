#include "element_copy.hpp"

namespace actorflow::ops::cpu {

std::vector<int64_t> strides_of(const core::shape& s) {
  std::vector<int64_t> strides(static_cast<size_t>(s.rank()));
  int64_t stride = 1;
  for (int d = s.rank() - 1; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = stride;
    stride *= s.dim(d);
  }
  return strides;
}

void copy_box(const core::tensor& src, int64_t src_base,
              const std::vector<int64_t>& src_strides, core::tensor& dst,
              int64_t dst_base, const std::vector<int64_t>& dst_strides,
              const std::vector<int64_t>& dims) {
  visit_storage(src.dtype(), [&](auto tag) {
    using U = decltype(tag);
    copy_box(src.data<U>(), src_base, src_strides, dst.mutable_data<U>(),
             dst_base, dst_strides, dims);
  });
}

std::vector<int64_t> read_ints(const core::tensor& t) {
  std::vector<int64_t> result(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < result.size(); ++i)
    result[i] = t.dtype() == core::dtype::int32
                  ? t.data<int32_t>()[i]
                  : t.data<int64_t>()[static_cast<int64_t>(i)];
  return result;
}

core::status read_scalar_int(const core::tensor& t, const char* what,
                             int64_t* out) {
  if (t.num_elements() != 1 || t.shape().rank() > 1)
    return core::invalid_argument_error(what, " must be a scalar, got shape ",
                                        t.shape().to_string());
  *out = read_ints(t)[0];
  return core::status::ok();
}

core::status canonical_axis(int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank)
    return core::invalid_argument_error("axis ", axis,
                                        " is out of range for a tensor of "
                                        "rank ",
                                        rank);
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return core::status::ok();
}

} // namespace actorflow::ops::cpu
