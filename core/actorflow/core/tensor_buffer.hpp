#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "actorflow/core/allocator.hpp"
#include "actorflow/core/dtype.hpp"

namespace actorflow::core {

/// A reference-counted block of memory from an allocator, holding `size`
/// elements of one dtype. String elements are constructed and destroyed here.
class tensor_buffer {
public:
  /// Allocates room for `size` elements; returns nullptr if the allocator is
  /// out of memory.
  static std::shared_ptr<tensor_buffer> make(std::shared_ptr<allocator> alloc,
                                             dtype type, int64_t size);

  ~tensor_buffer();

  tensor_buffer(const tensor_buffer&) = delete;
  tensor_buffer& operator=(const tensor_buffer&) = delete;

  void* data() const noexcept {
    return data_;
  }

  size_t bytes() const noexcept {
    return bytes_;
  }

  /// Returns where the memory lives: a GPU's device memory or the host's.
  memory_type memory() const noexcept {
    return alloc_->memory();
  }

  tensor_buffer(std::shared_ptr<allocator> alloc, dtype type, int64_t size,
                void* data, size_t bytes);

private:
  std::shared_ptr<allocator> alloc_;
  dtype type_;
  int64_t size_;
  void* data_;
  size_t bytes_;
};

} // namespace actorflow::core
