#include "actorflow/core/cpu_allocator.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace actorflow::core {

namespace {

constexpr size_t huge_page = size_t{2} << 20;
constexpr size_t huge_threshold = size_t{4} << 20;

/// The size of the block that holds `bytes`: rounded up to the alignment
/// (never 0: aligned_alloc wants a multiple of the alignment and a block
/// to point at), and from `huge_threshold` on to whole 2 MiB pages.
size_t rounded(size_t bytes) {
  auto n = (bytes + cpu_allocator::alignment - 1) / cpu_allocator::alignment
           * cpu_allocator::alignment;
  if (n >= huge_threshold)
    return (n + huge_page - 1) / huge_page * huge_page;
  return n == 0 ? cpu_allocator::alignment : n;
}

} // namespace

cpu_allocator::cpu_allocator() {
  // Room for every block kept, so that deallocate never allocates.
  for (auto& blocks : free_)
    blocks.reserve(max_cached_blocks);
}

cpu_allocator::~cpu_allocator() {
  for (auto& blocks : free_)
    for (auto* ptr : blocks)
      std::free(ptr);
  for (auto& block : large_)
    std::free(block.second);
}

size_t cpu_allocator::large_cached_bytes() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return large_bytes_;
}

std::string cpu_allocator::name() const {
  return "cpu";
}

memory_type cpu_allocator::memory() const noexcept {
  return memory_type::host;
}

void* cpu_allocator::allocate(size_t bytes) {
  auto n = rounded(bytes);
  void* ptr = nullptr;
  if (n <= max_cached) {
    std::lock_guard<std::mutex> guard{mtx_};
    auto& blocks = free_[n / alignment - 1];
    if (!blocks.empty()) {
      ptr = blocks.back();
      blocks.pop_back();
    }
  } else {
    std::lock_guard<std::mutex> guard{mtx_};
    auto i = large_.find(n);
    if (i != large_.end()) {
      ptr = i->second;
      large_.erase(i);
      large_bytes_ -= n;
    }
  }
  if (ptr == nullptr && n >= huge_threshold) {
    // Large blocks on 2 MiB pages where the kernel has them (transparent
    // huge pages in madvise mode): a 64 MiB tensor then takes 32 page
    // faults to touch rather than 16,384.
    ptr = std::aligned_alloc(huge_page, n);
    if (ptr != nullptr)
      ::madvise(ptr, n, MADV_HUGEPAGE);
  }
  if (ptr == nullptr)
    ptr = std::aligned_alloc(alignment, n);
  if (ptr != nullptr)
    record_alloc(bytes);
  return ptr;
}

void cpu_allocator::deallocate(void* ptr, size_t bytes) noexcept {
  if (ptr == nullptr)
    return;
  record_free(bytes);
  auto n = rounded(bytes);
  if (n <= max_cached) {
    std::lock_guard<std::mutex> guard{mtx_};
    auto& blocks = free_[n / alignment - 1];
    if (blocks.size() < max_cached_blocks) {
      blocks.push_back(ptr);
      return;
    }
  } else {
    std::lock_guard<std::mutex> guard{mtx_};
    if (large_bytes_ + n <= max_large_cached_bytes) {
      try {
        large_.emplace(n, ptr);
        large_bytes_ += n;
        return;
      } catch (const std::bad_alloc&) {
        // no room for the entry: the block goes back to the system
      }
    }
  }
  std::free(ptr);
}

} // namespace actorflow::core
