#pragma once

#include <array>
#include <map>
#include <mutex>
#include <vector>

#include "actorflow/core/allocator.hpp"

namespace actorflow::core {

/// Host memory, 64-byte aligned (one cache line, the widest AVX-512 load).
///
/// Freed blocks are kept and handed out again for a request of the same
/// size, as TensorFlow's pooling allocators do. Small blocks (up to
/// `max_cached` bytes): glibc serves aligned requests on a slow path that
/// splits and merges chunks, and a loop allocates a few small tensors per
/// iteration. Large blocks (up to `max_large_cached_bytes` in all): glibc
/// maps them fresh on every request and the kernel zeroes each page on
/// first touch, which took 7 % of a training step's time; a step allocates
/// the same sizes every time.
class cpu_allocator : public allocator {
public:
  static constexpr size_t alignment = 64;

  /// The largest small block size, kept per size class.
  static constexpr size_t max_cached = 1024;

  /// The most small blocks kept per size.
  static constexpr size_t max_cached_blocks = 256;

  /// The most bytes kept in freed large blocks; a block freed beyond it
  /// goes back to the system.
  static constexpr size_t max_large_cached_bytes = size_t{256} << 20;

  /// Returns the bytes kept in freed large blocks.
  size_t large_cached_bytes() const;

  cpu_allocator();

  cpu_allocator(const cpu_allocator&) = delete;
  cpu_allocator& operator=(const cpu_allocator&) = delete;

  ~cpu_allocator() override;

  std::string name() const override;

  memory_type memory() const noexcept override;

  void* allocate(size_t bytes) override;

  void deallocate(void* ptr, size_t bytes) noexcept override;

  bool allows_inline() const noexcept override {
    return true;
  }

private:
  /// Free blocks of `(k + 1) * alignment` bytes at index k.
  std::array<std::vector<void*>, max_cached / alignment> free_;
  /// Free large blocks by their size.
  std::multimap<size_t, void*> large_;
  size_t large_bytes_ = 0;
  mutable std::mutex mtx_;
};

} // namespace actorflow::core
