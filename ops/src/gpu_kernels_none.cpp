// A build without CUDA has no GPU kernels (and no GPU device).

#include "actorflow/ops/registration.hpp"

namespace actorflow::ops {

void register_gpu_kernels(kernel_registry&) {
  // nop
}

} // namespace actorflow::ops
