#pragma once

// The last line every benchmark prints: one JSON object, written by
// nlohmann-json, figures rounded to the places they carry.

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace actorflow::bench {

/// `x` rounded to `decimals` places.
inline double rounded(double x, int decimals) {
  auto scale = std::pow(10.0, decimals);
  return std::round(x * scale) / scale;
}

/// Prints `line` as one JSON object on a line of its own, keys in the
/// order given.
inline void print_json_line(const nlohmann::ordered_json& line) {
  std::printf("%s\n", line.dump().c_str());
  std::fflush(stdout);
}

} // namespace actorflow::bench
