#include "actorflow/ops/variable.hpp"

namespace actorflow::ops {

variable::variable(std::string name, core::dtype type, core::shape declared)
  : name_(std::move(name)), type_(type), declared_(std::move(declared)) {
  // nop
}

core::status variable::read(core::tensor* out) const {
  std::lock_guard<std::mutex> guard{mtx_};
  if (!value_.valid())
    return core::failed_precondition_error(
      "attempting to use uninitialized value ", name_);
  *out = value_;
  return core::status::ok();
}

bool variable::initialized() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return value_.valid();
}

} // namespace actorflow::ops
