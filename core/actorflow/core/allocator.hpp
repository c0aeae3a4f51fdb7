#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace actorflow::core {

/// Where an allocator's memory lives.
enum class memory_type : uint8_t {
  host,
  device,
};

/// Byte counters kept by every allocator (a small tensor whose elements lie
/// in its own header counts as its allocator's, see `allows_inline`).
struct allocator_stats {
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t num_allocs = 0;
};

/// Hands out memory for tensor buffers on one device.
///
/// Implementations are thread-safe. `allocate` returns nullptr when memory
/// is exhausted; callers turn that into `resource_exhausted`.
class allocator {
public:
  virtual ~allocator();

  virtual std::string name() const = 0;

  virtual memory_type memory() const noexcept = 0;

  virtual void* allocate(size_t bytes) = 0;

  virtual void deallocate(void* ptr, size_t bytes) noexcept = 0;

  /// Returns whether a small tensor (`tensor::inline_bytes`) may keep its
  /// elements in its own header instead of a block of this allocator: true
  /// for plain host memory only, never for device or pinned memory.
  virtual bool allows_inline() const noexcept {
    return false;
  }

  /// Returns the current counters.
  allocator_stats stats() const noexcept;

  /// Updates the counters; called by `allocate` and `deallocate`, and for
  /// the elements a small tensor keeps in its own header.
  void record_alloc(size_t bytes) noexcept;
  void record_free(size_t bytes) noexcept;

private:
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocs_{0};
};

} // namespace actorflow::core
