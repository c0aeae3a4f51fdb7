#include "actorflow/core/status.hpp"

namespace actorflow::core {

namespace {

const std::string& empty_string() {
  static const std::string x;
  return x;
}

} // namespace

status::status(errc code, std::string message) {
  if (code != errc::ok)
    rep_ = std::make_shared<rep>(rep{code, std::move(message), {}, {}, {}});
}

const std::string& status::message() const noexcept {
  return rep_ ? rep_->message : empty_string();
}

const std::string& status::node() const noexcept {
  return rep_ ? rep_->node : empty_string();
}

const std::string& status::op() const noexcept {
  return rep_ ? rep_->op : empty_string();
}

const std::string& status::device() const noexcept {
  return rep_ ? rep_->device : empty_string();
}

status status::with_context(std::string_view node, std::string_view op,
                            std::string_view device) const {
  if (!rep_)
    return *this;
  auto copy = std::make_shared<rep>(*rep_);
  if (copy->node.empty())
    copy->node = node;
  if (copy->op.empty())
    copy->op = op;
  if (copy->device.empty())
    copy->device = device;
  status result;
  result.rep_ = std::move(copy);
  return result;
}

status status::prefixed(std::string_view what) const {
  if (!rep_)
    return *this;
  auto copy = std::make_shared<rep>(*rep_);
  copy->message.insert(0, std::string{what} + ": ");
  status result;
  result.rep_ = std::move(copy);
  return result;
}

std::string status::to_string() const {
  if (!rep_)
    return "ok";
  std::string out{core::to_string(rep_->code)};
  out += ": ";
  out += rep_->message;
  if (!rep_->node.empty())
    out += " {{node " + rep_->node + "}}";
  if (!rep_->op.empty())
    out += " {{op " + rep_->op + "}}";
  if (!rep_->device.empty())
    out += " {{device " + rep_->device + "}}";
  return out;
}

bool operator==(const status& x, const status& y) noexcept {
  if (x.rep_ == y.rep_)
    return true;
  if (!x.rep_ || !y.rep_)
    return false;
  return x.rep_->code == y.rep_->code && x.rep_->message == y.rep_->message
         && x.rep_->node == y.rep_->node && x.rep_->op == y.rep_->op
         && x.rep_->device == y.rep_->device;
}

} // namespace actorflow::core
