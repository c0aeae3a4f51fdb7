#include "actorflow/core/errc.hpp"

namespace actorflow::core {

std::string_view to_string(errc x) noexcept {
  switch (x) {
    case errc::ok: return "ok";
    case errc::cancelled: return "cancelled";
    case errc::invalid_argument: return "invalid_argument";
    case errc::deadline_exceeded: return "deadline_exceeded";
    case errc::not_found: return "not_found";
    case errc::already_exists: return "already_exists";
    case errc::resource_exhausted: return "resource_exhausted";
    case errc::failed_precondition: return "failed_precondition";
    case errc::aborted: return "aborted";
    case errc::out_of_range: return "out_of_range";
    case errc::unimplemented: return "unimplemented";
    case errc::internal: return "internal";
    case errc::unavailable: return "unavailable";
    case errc::data_loss: return "data_loss";
  }
  return "unknown";
}

} // namespace actorflow::core
