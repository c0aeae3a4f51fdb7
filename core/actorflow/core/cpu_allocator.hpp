#pragma once

#include "actorflow/core/allocator.hpp"

namespace actorflow::core {

/// Host memory, 64-byte aligned (one cache line, the widest AVX-512 load).
class cpu_allocator : public allocator {
public:
  static constexpr size_t alignment = 64;

  std::string name() const override;

  memory_type memory() const noexcept override;

  void* allocate(size_t bytes) override;

  void deallocate(void* ptr, size_t bytes) noexcept override;
};

} // namespace actorflow::core
