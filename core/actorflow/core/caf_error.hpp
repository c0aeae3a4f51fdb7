#pragma once

/// Conversions between `status` and `caf::error`, so that failures cross
/// actor boundaries (and later the network) as CAF errors.

#include <caf/error.hpp>

#include "actorflow/core/status.hpp"

namespace actorflow::core {

/// The CAF error category of actorflow errors.
inline constexpr caf::atom_value error_category = caf::atom("actorflow");

/// Converts `x` into a `caf::error` of category `actorflow` whose context
/// carries message, node, op and device. An ok status becomes no error.
caf::error to_error(const status& x);

/// Converts `x` back; CAF's own errors become `internal` (or `cancelled`,
/// `deadline_exceeded`, `unavailable` where a CAF code says so).
status from_error(const caf::error& x);

/// Renders an actorflow `caf::error` for `add_error_category`.
std::string render_error(uint8_t code, caf::atom_value category,
                         const caf::message& context);

} // namespace actorflow::core
