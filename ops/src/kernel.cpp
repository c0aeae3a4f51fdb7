#include "actorflow/ops/kernel.hpp"

#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops {

kernel::~kernel() {
  // nop
}

void kernel::compute_async(kernel_context& ctx, done_callback done) {
  compute(ctx);
  done();
}

} // namespace actorflow::ops
