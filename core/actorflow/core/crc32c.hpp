#pragma once

// CRC-32C (Castagnoli), the checksum of TensorFlow's files: event records,
// tensor bundles and their tables.

#include <cstddef>
#include <cstdint>

namespace actorflow::core {

/// The CRC-32C of `n` bytes at `data`.
uint32_t crc32c(const void* data, size_t n);

/// The CRC-32C of the bytes `crc` was computed over followed by `n` bytes at
/// `data`.
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t n);

/// `crc` as TensorFlow's files store it: rotated and offset, so that the
/// CRC of data that holds CRCs stays well distributed.
inline uint32_t mask_crc32c(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/// The CRC a masked one stands for.
inline uint32_t unmask_crc32c(uint32_t masked) {
  auto rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

} // namespace actorflow::core
