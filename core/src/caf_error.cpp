#include "actorflow/core/caf_error.hpp"

#include <caf/make_message.hpp>
#include <caf/sec.hpp>

namespace actorflow::core {

caf::error to_error(const status& x) {
  if (x.is_ok())
    return caf::none;
  return caf::error{
    static_cast<uint8_t>(x.code()), error_category,
    caf::make_message(x.message(), x.node(), x.op(), x.device())};
}

status from_error(const caf::error& x) {
  if (!x)
    return status::ok();
  if (x.category() == error_category) {
    const auto& ctx = x.context();
    if (ctx.match_elements<std::string, std::string, std::string,
                           std::string>()) {
      status result{static_cast<errc>(x.code()), ctx.get_as<std::string>(0)};
      return result.with_context(ctx.get_as<std::string>(1),
                                 ctx.get_as<std::string>(2),
                                 ctx.get_as<std::string>(3));
    }
    return status{static_cast<errc>(x.code()), "(no context)"};
  }
  auto text = caf::to_string(x);
  if (x.category() == caf::atom("system")) {
    switch (static_cast<caf::sec>(x.code())) {
      case caf::sec::request_timeout:
        return deadline_exceeded_error("CAF: ", text);
      case caf::sec::request_receiver_down:
      case caf::sec::cannot_connect_to_node:
        return unavailable_error("CAF: ", text);
      default: break;
    }
  }
  return internal_error("CAF: ", text);
}

std::string render_error(uint8_t code, caf::atom_value category,
                         const caf::message& context) {
  return from_error(caf::error{code, category, context}).to_string();
}

} // namespace actorflow::core
