#include "element_copy.hpp"

namespace actorflow::ops::cpu {

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
