#include "actorflow/core/cpu_allocator.hpp"

#include <sys/mman.h>

#include <cstdlib>

namespace actorflow::core {

namespace {

/// `bytes` rounded up to the alignment (never 0: aligned_alloc wants a
/// multiple of the alignment and a block to point at).
size_t rounded(size_t bytes) {
  auto n = (bytes + cpu_allocator::alignment - 1) / cpu_allocator::alignment
           * cpu_allocator::alignment;
  return n == 0 ? cpu_allocator::alignment : n;
}

constexpr size_t huge_page = size_t{2} << 20;
constexpr size_t huge_threshold = size_t{4} << 20;

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
  }
  if (ptr == nullptr && n >= huge_threshold) {
    // Large blocks on 2 MiB pages where the kernel has them (transparent
    // huge pages in madvise mode): a 64 MiB tensor then takes 32 page
    // faults to touch rather than 16,384.
    n = (n + huge_page - 1) / huge_page * huge_page;
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
  }
  std::free(ptr);
}

} // namespace actorflow::core
