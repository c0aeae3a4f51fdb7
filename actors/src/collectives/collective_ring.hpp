#pragma once

// The ring all-reduce's schedule: how a tensor is cut into one chunk per
// member, and which chunk each member sends and receives at each step.

#include <cstdint>
#include <utility>

namespace actorflow::actors::detail {

/// `x` mod `n` in [0, n).
inline int ring(int64_t x, int n) {
  auto r = static_cast<int>(x % n);
  return r < 0 ? r + n : r;
}

/// Elements [begin, end) of chunk `c` of `total` in `n`.
inline std::pair<int64_t, int64_t> chunk_range(int64_t total, int n, int c) {
  return {total * c / n, total * (c + 1) / n};
}

/// The chunk member `rank` of `n` sends at ring step `s` of 2 (n - 1):
/// the first n - 1 steps reduce (each member ends with one chunk summed
/// over all), the others pass the sums around.
inline int sent_chunk(int rank, int n, int64_t s) {
  return s < n - 1 ? ring(rank - s, n) : ring(rank + 1 - (s - (n - 1)), n);
}

/// The chunk member `rank` of `n` receives at ring step `s`.
inline int received_chunk(int rank, int n, int64_t s) {
  return s < n - 1 ? ring(rank - s - 1, n) : ring(rank - (s - (n - 1)), n);
}

} // namespace actorflow::actors::detail
