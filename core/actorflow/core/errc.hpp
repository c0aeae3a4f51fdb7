#pragma once

#include <cstdint>
#include <string_view>

namespace actorflow::core {

/// Canonical error codes; the numbers match TensorFlow's and gRPC's.
enum class errc : uint8_t {
  ok = 0,
  cancelled = 1,
  invalid_argument = 3,
  deadline_exceeded = 4,
  not_found = 5,
  already_exists = 6,
  resource_exhausted = 8,
  failed_precondition = 9,
  aborted = 10,
  out_of_range = 11,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
  data_loss = 15,
};

/// Returns the snake_case name of `x`, e.g. "invalid_argument".
std::string_view to_string(errc x) noexcept;

} // namespace actorflow::core
