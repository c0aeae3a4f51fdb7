#include "actorflow/core/tensor_buffer.hpp"

#include <new>
#include <string>

#include "actorflow/core/allocator.hpp"

namespace actorflow::core {

std::shared_ptr<tensor_buffer>
tensor_buffer::make(std::shared_ptr<allocator> alloc, dtype type,
                    int64_t size) {
  auto bytes = static_cast<size_t>(size) * size_of(type);
  auto* data = alloc->allocate(bytes);
  if (data == nullptr)
    return nullptr;
  if (type == dtype::string) {
    auto* strings = static_cast<std::string*>(data);
    for (int64_t i = 0; i < size; ++i)
      new (strings + i) std::string();
  }
  return std::make_shared<tensor_buffer>(std::move(alloc), type, size, data,
                                         bytes);
}

tensor_buffer::tensor_buffer(std::shared_ptr<allocator> alloc, dtype type,
                             int64_t size, void* data, size_t bytes)
  : alloc_(std::move(alloc)), type_(type), size_(size), data_(data),
    bytes_(bytes) {
  // nop
}

tensor_buffer::~tensor_buffer() {
  if (type_ == dtype::string) {
    auto* strings = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < size_; ++i)
      strings[i].~basic_string();
  }
  alloc_->deallocate(data_, bytes_);
}

} // namespace actorflow::core
