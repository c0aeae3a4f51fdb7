#include "kernels.hpp"

namespace actorflow::ops::cpu {

void register_handle_kernels(kernel_registry& r, const std::string& dev) {
  register_control_flow_handles(r, dev);
  register_array_handles(r, dev);
  register_shape_handles(r, dev);
  register_state_handles(r, dev);
}

} // namespace actorflow::ops::cpu
