#include "actorflow/core/cpu_allocator.hpp"

#include <cstdlib>

namespace actorflow::core {

std::string cpu_allocator::name() const {
  return "cpu";
}

memory_type cpu_allocator::memory() const noexcept {
  return memory_type::host;
}

void* cpu_allocator::allocate(size_t bytes) {
  // aligned_alloc wants a multiple of the alignment; never ask for 0 bytes.
  auto rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded == 0)
    rounded = alignment;
  auto* ptr = std::aligned_alloc(alignment, rounded);
  if (ptr != nullptr)
    record_alloc(bytes);
  return ptr;
}

void cpu_allocator::deallocate(void* ptr, size_t bytes) noexcept {
  if (ptr == nullptr)
    return;
  std::free(ptr);
  record_free(bytes);
}

} // namespace actorflow::core
