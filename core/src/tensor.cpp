#include "actorflow/core/tensor.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>

#include "actorflow/core/cpu_allocator.hpp"

namespace actorflow::core {

const std::shared_ptr<allocator>& host_allocator() {
  static const std::shared_ptr<allocator> instance
    = std::make_shared<cpu_allocator>();
  return instance;
}

status tensor::make(const std::shared_ptr<allocator>& alloc, core::dtype type,
                    const core::shape& s, tensor* out) {
  if (type == core::dtype::invalid)
    return invalid_argument_error("cannot make a tensor of dtype invalid");
  if (!s.fully_defined())
    return invalid_argument_error("cannot make a tensor of shape ",
                                  s.to_string(), ": not fully defined");
  int64_t n = 1;
  for (auto d : s.dims())
    if (__builtin_mul_overflow(n, d, &n)
        || n > std::numeric_limits<int64_t>::max()
                 / static_cast<int64_t>(size_of(type)))
      return invalid_argument_error("cannot make a tensor of shape ",
                                    s.to_string(), ": too many elements");
  auto b = std::make_shared<body>();
  b->type = type;
  b->dims = s;
  b->size = n;
  auto bytes = static_cast<size_t>(n) * size_of(type);
  bool objects = type == core::dtype::string || type == core::dtype::variant;
  if (bytes <= inline_bytes && !objects && alloc->allows_inline()) {
    auto at = reinterpret_cast<uintptr_t>(b->local);
    b->data = b->local + ((64 - at % 64) % 64);
    b->in_header = true;
    alloc->record_alloc(bytes);
  } else {
    b->data = alloc->allocate(bytes);
    if (b->data == nullptr)
      return resource_exhausted_error("out of memory allocating ", bytes,
                                      " bytes on ", alloc->name());
    b->memory = alloc->memory();
    if (type == core::dtype::string) {
      auto* strings = static_cast<std::string*>(b->data);
      for (int64_t i = 0; i < n; ++i)
        new (strings + i) std::string();
    } else if (type == core::dtype::variant) {
      auto* values = static_cast<variant*>(b->data);
      for (int64_t i = 0; i < n; ++i)
        new (values + i) variant();
    }
  }
  b->alloc = alloc;
  b->bytes = bytes;
  *out = tensor{std::move(b)};
  return status::ok();
}

tensor::body::~body() {
  if (!alloc)
    return;
  if (in_header) {
    alloc->record_free(bytes);
    return;
  }
  if (type == core::dtype::string) {
    auto* strings = static_cast<std::string*>(data);
    for (int64_t i = 0; i < size; ++i)
      strings[i].~basic_string();
  } else if (type == core::dtype::variant) {
    auto* values = static_cast<variant*>(data);
    for (int64_t i = 0; i < size; ++i)
      values[i].~variant();
  }
  alloc->deallocate(data, bytes);
}

tensor::tensor(core::dtype type, const core::shape& s) {
  auto st = make(host_allocator(), type, s, this);
  if (st.code() == errc::resource_exhausted)
    throw std::bad_alloc();
  if (!st.is_ok())
    throw std::invalid_argument(st.to_string());
}

status tensor::borrow(core::dtype type, const core::shape& s, void* data,
                      std::shared_ptr<const void> owner, tensor* out) {
  if (type == core::dtype::invalid || type == core::dtype::string
      || type == core::dtype::variant)
    return invalid_argument_error("cannot borrow memory for a tensor of dtype ",
                                  to_string(type));
  if (!s.fully_defined())
    return invalid_argument_error("cannot borrow memory for shape ",
                                  s.to_string(), ": not fully defined");
  if (reinterpret_cast<uintptr_t>(data) % 16 != 0)
    return invalid_argument_error(
      "cannot borrow memory at ", reinterpret_cast<uintptr_t>(data) % 16,
      " bytes past a 16-byte boundary: it must be aligned to 16 bytes");
  if (owner == nullptr)
    return invalid_argument_error("cannot borrow memory without an owner");
  auto b = std::make_shared<body>();
  b->type = type;
  b->dims = s;
  b->size = s.num_elements();
  b->data = data;
  b->lender = std::move(owner);
  *out = tensor{std::move(b)};
  return status::ok();
}

const core::shape& tensor::no_shape() noexcept {
  static const core::shape empty;
  return empty;
}

size_t tensor::bytes() const noexcept {
  return body_ ? static_cast<size_t>(body_->size) * size_of(body_->type) : 0;
}

status tensor::reshaped(const core::shape& s, tensor* out) const {
  if (!body_)
    return invalid_argument_error("cannot reshape an empty tensor handle");
  if (!s.fully_defined() || s.num_elements() != body_->size)
    return invalid_argument_error("cannot reshape a tensor of shape ",
                                  body_->dims.to_string(), " to ",
                                  s.to_string());
  auto view = std::make_shared<body>();
  view->type = body_->type;
  view->dims = s;
  view->size = body_->size;
  view->data = body_->data;
  view->memory = body_->memory;
  view->base = body_->base ? body_->base : body_;
  *out = tensor{std::move(view)};
  return status::ok();
}

status tensor::deep_copy(tensor* out,
                         const std::shared_ptr<allocator>& alloc) const {
  if (!body_) {
    *out = tensor{};
    return status::ok();
  }
  tensor result;
  ACTORFLOW_RETURN_IF_ERROR(
    make(alloc ? alloc : host_allocator(), body_->type, body_->dims, &result));
  if (body_->type == core::dtype::string) {
    auto* src = data<std::string>();
    auto* dst = result.mutable_data<std::string>();
    for (int64_t i = 0; i < body_->size; ++i)
      dst[i] = src[i];
  } else if (body_->type == core::dtype::variant) {
    // The values are immutable: the copy shares them.
    std::copy(data<variant>(), data<variant>() + body_->size,
              result.mutable_data<variant>());
  } else if (bytes() > 0) {
    std::memcpy(result.raw_mutable_data(), raw_data(), bytes());
  }
  *out = std::move(result);
  return status::ok();
}

bool tensor::shares_buffer_with(const tensor& other) const noexcept {
  return body_ && other.body_ && body_->owner() == other.body_->owner();
}

bool tensor::unique() const noexcept {
  return body_ && body_.use_count() == 1
         && (!body_->base || body_->base.use_count() == 1)
         && !body_->owner()->lender;
}

bool tensor::equals(const tensor& other) const {
  if (valid() != other.valid())
    return false;
  if (!valid())
    return true;
  if (dtype() != other.dtype() || shape() != other.shape())
    return false;
  if (dtype() == core::dtype::string) {
    for (int64_t i = 0; i < num_elements(); ++i)
      if (data<std::string>()[i] != other.data<std::string>()[i])
        return false;
    return true;
  }
  if (dtype() == core::dtype::bool_) {
    for (int64_t i = 0; i < num_elements(); ++i)
      if (data<bool>()[i] != other.data<bool>()[i])
        return false;
    return true;
  }
  if (dtype() == core::dtype::variant)
    return std::equal(data<variant>(), data<variant>() + num_elements(),
                      other.data<variant>());
  return bytes() == 0
         || std::memcmp(raw_data(), other.raw_data(), bytes()) == 0;
}

std::string tensor::debug_string(int64_t max_elements) const {
  if (!body_)
    return "tensor<empty>";
  std::ostringstream out;
  out << "tensor<" << to_string(dtype()) << ", " << shape().to_string() << ">[";
  auto n = std::min(num_elements(), max_elements);
  if (dtype() == core::dtype::variant)
    for (int64_t i = 0; i < n; ++i) {
      const auto& v = data<variant>()[i];
      out << (i > 0 ? ", " : "") << (v ? v->debug_string() : "<empty>");
    }
  visit_dtype(dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0)
        out << ", ";
      const auto& v = data<T>()[i];
      if constexpr (std::is_same_v<
                      T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>)
        out << static_cast<float>(v);
      else if constexpr (std::is_same_v<T,
                                        int8_t> || std::is_same_v<T, uint8_t>)
        out << static_cast<int>(v);
      else
        out << v;
    }
  });
  if (num_elements() > n)
    out << ", ...";
  out << "]";
  return out.str();
}

} // namespace actorflow::core
