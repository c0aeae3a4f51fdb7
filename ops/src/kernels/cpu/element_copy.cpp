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

} // namespace actorflow::ops::cpu
