#include "actorflow/core/allocator.hpp"

namespace actorflow::core {

allocator::~allocator() {
  // nop
}

allocator_stats allocator::stats() const noexcept {
  return {in_use_.load(), peak_.load(), allocs_.load()};
}

void allocator::record_alloc(size_t bytes) noexcept {
  auto now = in_use_.fetch_add(static_cast<int64_t>(bytes))
             + static_cast<int64_t>(bytes);
  allocs_.fetch_add(1, std::memory_order_relaxed);
  auto peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    // retry
  }
}

void allocator::record_free(size_t bytes) noexcept {
  in_use_.fetch_sub(static_cast<int64_t>(bytes));
}

} // namespace actorflow::core
