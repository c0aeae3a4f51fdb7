#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "actorflow/core/allocator.hpp"

namespace actorflow::devices::cuda {

/// Memory that is slow to get and give back (cudaMalloc, cudaHostAlloc:
/// each may synchronise the device), kept once freed and handed out again.
///
/// Sizes are rounded into bins: to 512 bytes up to 1 MiB, then to 2 MiB
/// (PyTorch's caching allocator rounds alike). A request takes the
/// smallest free block of its bin or larger, up to twice its size. When the
/// system has no memory left, every free block goes back and the request is
/// tried once more; failing that, `allocate` returns nullptr and the tensor
/// that asked becomes `resource_exhausted`. `deallocate` never calls the
/// system: a block freed from a CUDA callback only goes back to its bin.
class caching_allocator : public core::allocator {
public:
  using raw_alloc = std::function<void*(size_t)>;
  using raw_free = std::function<void(void*)>;

  caching_allocator(std::string name, core::memory_type where, raw_alloc get,
                    raw_free put);

  caching_allocator(const caching_allocator&) = delete;
  caching_allocator& operator=(const caching_allocator&) = delete;

  ~caching_allocator() override;

  std::string name() const override {
    return name_;
  }

  core::memory_type memory() const noexcept override {
    return where_;
  }

  void* allocate(size_t bytes) override;

  void deallocate(void* ptr, size_t bytes) noexcept override;

  /// Returns the bytes held in free blocks.
  size_t cached_bytes() const;

  /// Returns the size of the block that serves a request of `bytes`.
  static size_t bin_size(size_t bytes) noexcept;

private:
  /// Gives every free block back; requires holding `mtx_`.
  void release_cached_locked();

  std::string name_;
  core::memory_type where_;
  raw_alloc get_;
  raw_free put_;
  mutable std::mutex mtx_;
  std::multimap<size_t, void*> free_; ///< Free blocks by size.
  std::map<void*, size_t> sizes_;     ///< Every block by address.
  size_t cached_ = 0;
};

} // namespace actorflow::devices::cuda
