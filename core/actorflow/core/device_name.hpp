#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace actorflow::core {

/// A full or partial device name: `/job:J/task:T/device:cpu:N`, or any part
/// of it (`cpu:1`, `/device:CPU:0`, `/job:worker`, `/cpu:0`).
///
/// Unset fields match anything. Device types are kept in lower case.
struct device_name {
  std::optional<std::string> job;
  std::optional<int> task;
  std::optional<std::string> type;
  std::optional<int> id;

  /// Parses `text`; returns nothing when it is malformed. The empty string
  /// is the fully unspecified name.
  static std::optional<device_name> parse(std::string_view text);

  /// Returns whether every field set here equals the one in `full`.
  bool matches(const device_name& full) const noexcept;

  /// Renders the canonical form, e.g. `/job:localhost/task:0/device:cpu:1`,
  /// leaving out unset fields.
  std::string to_string() const;
};

} // namespace actorflow::core
