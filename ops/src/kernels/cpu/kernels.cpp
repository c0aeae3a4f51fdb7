#include "kernels.hpp"

namespace actorflow::ops::cpu {

std::vector<int64_t> read_ints(const core::tensor& t) {
  std::vector<int64_t> result;
  for (int64_t i = 0; i < t.num_elements(); ++i)
    result.push_back(t.dtype() == core::dtype::int32 ? t.data<int32_t>()[i]
                                                     : t.data<int64_t>()[i]);
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

void register_handle_kernels(kernel_registry& r, const std::string& dev) {
  register_control_flow_handles(r, dev);
  register_array_handles(r, dev);
  register_shape_handles(r, dev);
  register_state_handles(r, dev);
}

} // namespace actorflow::ops::cpu
