#include "caching_allocator.hpp"

namespace actorflow::devices::cuda {

namespace {

constexpr size_t small_round = 512;
constexpr size_t large_round = size_t{2} << 20;
constexpr size_t small_limit = size_t{1} << 20;

} // namespace

caching_allocator::caching_allocator(std::string name, core::memory_type where,
                                     raw_alloc get, raw_free put)
  : name_(std::move(name)), where_(where), get_(std::move(get)),
    put_(std::move(put)) {
  // nop
}

caching_allocator::~caching_allocator() {
  std::lock_guard<std::mutex> guard{mtx_};
  release_cached_locked();
  // Blocks still in use belong to tensors that outlive the device: they
  // are left to the process's end rather than freed under their users.
}

size_t caching_allocator::bin_size(size_t bytes) noexcept {
  if (bytes == 0)
    return small_round;
  auto unit = bytes < small_limit ? small_round : large_round;
  return (bytes + unit - 1) / unit * unit;
}

void* caching_allocator::allocate(size_t bytes) {
  auto n = bin_size(bytes);
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = free_.lower_bound(n);
  if (i != free_.end() && i->first <= 2 * n) {
    auto* ptr = i->second;
    cached_ -= i->first;
    record_alloc(i->first);
    free_.erase(i);
    return ptr;
  }
  auto* ptr = get_(n);
  if (ptr == nullptr && !free_.empty()) {
    release_cached_locked();
    ptr = get_(n);
  }
  if (ptr == nullptr)
    return nullptr;
  sizes_.emplace(ptr, n);
  record_alloc(n);
  return ptr;
}

void caching_allocator::deallocate(void* ptr, size_t) noexcept {
  if (ptr == nullptr)
    return;
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = sizes_.find(ptr);
  if (i == sizes_.end())
    return; // not ours: nothing sensible to do in a noexcept path
  record_free(i->second);
  cached_ += i->second;
  free_.emplace(i->second, ptr);
}

size_t caching_allocator::cached_bytes() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return cached_;
}

void caching_allocator::release_cached_locked() {
  for (auto& [size, ptr] : free_) {
    put_(ptr);
    sizes_.erase(ptr);
  }
  free_.clear();
  cached_ = 0;
}

} // namespace actorflow::devices::cuda
