#include "actorflow/ops/kernel_context.hpp"

#include "actorflow/devices/device.hpp"

namespace actorflow::ops {

kernel_context::kernel_context(devices::device& dev,
                               const std::vector<arg_type>& out_types,
                               uint64_t step_id)
  : device_(dev), out_types_(out_types), step_id_(step_id),
    outputs_(out_types.size()) {
  // nop
}

core::status kernel_context::allocate_output(size_t i, const core::shape& s,
                                             core::tensor** out) {
  auto where = memory_ != nullptr && memory_->output_on_host(i)
                 ? core::memory_type::host
                 : core::memory_type::device;
  ACTORFLOW_RETURN_IF_ERROR(core::tensor::make(
    device_.allocator(where), out_types_[i].type, s, &outputs_[i].value));
  *out = &outputs_[i].value;
  return core::status::ok();
}

core::status kernel_context::forward_input_or_allocate_output(
  size_t in, size_t i, const core::shape& s, core::tensor** out) {
  const auto& x = inputs_[in];
  if (!x.ref && x.value.valid() && x.value.unique()
      && x.value.dtype() == out_types_[i].type
      && x.value.dtype() != core::dtype::string
      && (&x.value.shape() == &s || x.value.shape() == s)) {
    outputs_[i].value = x.value;
    *out = &outputs_[i].value;
    return core::status::ok();
  }
  return allocate_output(i, s, out);
}

void kernel_context::reset(uint64_t step_id) {
  step_id_ = step_id;
  for (auto& x : outputs_) {
    if (x.value.valid())
      x.value = core::tensor{};
    if (x.ref)
      x.ref.reset();
  }
  if (!status_.is_ok())
    status_ = core::status::ok();
}

} // namespace actorflow::ops
