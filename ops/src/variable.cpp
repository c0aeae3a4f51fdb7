#include "actorflow/ops/variable.hpp"

#include <string_view>

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

namespace {

/// Between a handle's container and name: a character neither holds.
constexpr char handle_separator = '\x1f';
constexpr std::string_view handle_prefix = "variable:";

} // namespace

std::string variable_handle(const std::string& container,
                            const std::string& name) {
  return std::string{handle_prefix} + container + handle_separator + name;
}

bool parse_variable_handle(const std::string& handle, std::string* container,
                           std::string* name) {
  if (handle.compare(0, handle_prefix.size(), handle_prefix) != 0)
    return false;
  auto sep = handle.find(handle_separator, handle_prefix.size());
  if (sep == std::string::npos)
    return false;
  *container = handle.substr(handle_prefix.size(), sep - handle_prefix.size());
  *name = handle.substr(sep + 1);
  return true;
}

} // namespace actorflow::ops
