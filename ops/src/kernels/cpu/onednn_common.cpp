#include "onednn_common.hpp"

#include <omp.h>

#include "actorflow/devices/device.hpp"

namespace actorflow::ops::cpu::onednn {

core::status scratch(kernel_context& ctx, size_t bytes, core::tensor* out) {
  return core::tensor::make(ctx.device().allocator(core::memory_type::host),
                            core::dtype::uint8,
                            core::shape{static_cast<int64_t>(bytes)}, out);
}

void one_omp_thread() {
  if (omp_get_max_threads() != 1)
    omp_set_num_threads(1);
}

} // namespace actorflow::ops::cpu::onednn
