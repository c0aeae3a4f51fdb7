#include "actorflow/ops/tensor_list.hpp"

namespace actorflow::ops {

std::string tensor_list::debug_string() const {
  return "TensorList<" + std::string{core::to_string(element_dtype_)} + ", "
         + element_shape_.to_string() + ", " + std::to_string(items_.size())
         + " items>";
}

} // namespace actorflow::ops
