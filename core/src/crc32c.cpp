#include "actorflow/core/crc32c.hpp"

#include <algorithm>
#include <climits>

#include <isa-l/crc.h>

namespace actorflow::core {

uint32_t crc32c_extend(uint32_t crc, const void* data, size_t n) {
  // ISA-L's crc32_iscsi leaves the initial and final inversions to the
  // caller, and takes lengths as int.
  auto* p = static_cast<unsigned char*>(const_cast<void*>(data));
  uint32_t state = ~crc;
  while (n > 0) {
    auto chunk = std::min<size_t>(n, INT_MAX);
    state = crc32_iscsi(p, static_cast<int>(chunk), state);
    p += chunk;
    n -= chunk;
  }
  return ~state;
}

uint32_t crc32c(const void* data, size_t n) {
  return crc32c_extend(0, data, n);
}

} // namespace actorflow::core
