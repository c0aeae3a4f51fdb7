#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/core/allocator.hpp"
#include "actorflow/core/dtype.hpp"
#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::core {

/// Returns the process's plain host allocator, used for tensors that belong
/// to no device (feeds, results, tests). Devices have their own.
const std::shared_ptr<allocator>& host_allocator();

/// A typed, shaped, reference-counted n-dimensional array.
///
/// `tensor` is a cheap handle: copying it copies one pointer. A produced
/// tensor is immutable by convention: a kernel writes only to the outputs it
/// allocated itself, before handing them on, and stateful ops (variables)
/// copy on write when a buffer is shared, so consumers never see a value
/// change under them.
class tensor {
public:
  template <class T, int Rank>
  using map = Eigen::TensorMap<
    Eigen::Tensor<T, Rank, Eigen::RowMajor, Eigen::DenseIndex>, Eigen::Aligned>;

  /// Constructs an empty handle (`valid()` is false).
  tensor() = default;

  /// Allocates an uninitialised tensor (strings start empty) from `alloc`;
  /// `s` must be fully defined.
  static status make(const std::shared_ptr<allocator>& alloc, core::dtype type,
                     const core::shape& s, tensor* out);

  /// Allocates from the host allocator; throws `std::bad_alloc` when memory is
  /// exhausted. For tests, feeds and builders.
  tensor(core::dtype type, const core::shape& s);

  /// Wraps host memory that someone else owns (a numpy array, say) without
  /// copying it: `owner` is kept alive as long as any handle to the buffer
  /// is, and released on whatever thread drops the last one. Such a tensor
  /// is never `unique()`, so no kernel writes into it in place. `data` must
  /// hold `s.num_elements()` elements of `type` (neither string nor
  /// variant), aligned to 16 bytes (Eigen's `Aligned`).
  static status borrow(core::dtype type, const core::shape& s, void* data,
                       std::shared_ptr<const void> owner, tensor* out);

  /// Makes a scalar.
  template <class T>
  static tensor scalar(T value) {
    tensor result{dtype_v<T>, core::shape{}};
    *result.mutable_data<T>() = std::move(value);
    return result;
  }

  /// Makes a tensor of shape `s` from `values` (row-major); throws
  /// `std::invalid_argument` unless there is one value per element.
  template <class T>
  static tensor from_vector(const core::shape& s,
                            const std::vector<T>& values) {
    tensor result{dtype_v<T>, s};
    if (static_cast<int64_t>(values.size()) != result.num_elements())
      throw std::invalid_argument("from_vector: "
                                  + std::to_string(values.size())
                                  + " values for shape " + s.to_string());
    auto* dst = result.mutable_data<T>();
    for (size_t i = 0; i < values.size(); ++i)
      dst[i] = values[i];
    return result;
  }

  bool valid() const noexcept {
    return body_ != nullptr;
  }

  core::dtype dtype() const noexcept {
    return body_ ? body_->type : core::dtype::invalid;
  }

  const core::shape& shape() const noexcept {
    return body_ ? body_->dims : no_shape();
  }

  int64_t num_elements() const noexcept {
    return body_ ? body_->size : 0;
  }

  size_t bytes() const noexcept;

  /// Returns where the elements live; an empty handle says host.
  memory_type memory() const noexcept {
    return body_ ? body_->memory : memory_type::host;
  }

  const void* raw_data() const noexcept {
    return body_ ? body_->data : nullptr;
  }

  void* raw_mutable_data() noexcept {
    return body_ ? body_->data : nullptr;
  }

  template <class T>
  const T* data() const noexcept {
    return static_cast<const T*>(raw_data());
  }

  template <class T>
  T* mutable_data() noexcept {
    return static_cast<T*>(raw_mutable_data());
  }

  /// Views the elements as a 1-D Eigen tensor.
  template <class T>
  map<const T, 1> flat() const {
    return map<const T, 1>{data<T>(), num_elements()};
  }

  template <class T>
  map<T, 1> mutable_flat() {
    return map<T, 1>{mutable_data<T>(), num_elements()};
  }

  /// Views a rank-2 tensor as an Eigen matrix map.
  template <class T>
  map<const T, 2> matrix() const {
    return map<const T, 2>{data<T>(), shape().dim(0), shape().dim(1)};
  }

  template <class T>
  map<T, 2> mutable_matrix() {
    return map<T, 2>{mutable_data<T>(), shape().dim(0), shape().dim(1)};
  }

  /// Returns the single element of a scalar (or one-element) tensor.
  template <class T>
  const T& scalar_value() const {
    return *data<T>();
  }

  /// Returns a tensor with the same elements and buffer but shape `s`;
  /// `s` must hold as many elements.
  status reshaped(const core::shape& s, tensor* out) const;

  /// Returns a copy with a buffer of its own, from `alloc` (host if null).
  status deep_copy(tensor* out,
                   const std::shared_ptr<allocator>& alloc = nullptr) const;

  /// Returns whether both handles use the same elements (copies of one
  /// handle, or a reshape and what it views).
  bool shares_buffer_with(const tensor& other) const noexcept;

  /// Returns whether this handle is the only one to the buffer, so that
  /// writing to it in place cannot be observed by anyone else.
  bool unique() const noexcept;

  /// Returns whether dtype, shape and every element are equal.
  bool equals(const tensor& other) const;

  friend bool operator==(const tensor& x, const tensor& y) {
    return x.equals(y);
  }

  /// Renders dtype, shape and up to `max_elements` values.
  std::string debug_string(int64_t max_elements = 16) const;

  /// The most bytes of elements a tensor keeps in its own header, when its
  /// allocator allows it (`allocator::allows_inline`).
  static constexpr size_t inline_bytes = 64;

private:
  /// What handles share: the elements' type, shape and place, and what
  /// keeps them. A fresh tensor's body owns its elements -- a block of its
  /// allocator or, for a small host tensor, bytes of the body itself (one
  /// allocation in all) -- and a reshape's body views those of the body it
  /// was made from.
  struct body {
    core::dtype type = core::dtype::invalid;
    core::shape dims;
    int64_t size = 0;
    void* data = nullptr;
    memory_type memory = memory_type::host;
    /// Whether the elements lie in `local`.
    bool in_header = false;
    /// The body whose elements this one views; nullptr when it owns them.
    std::shared_ptr<body> base;
    /// The allocator of owned elements (a block of it, or `local` counted
    /// as its), and their size; nullptr when this body views another's.
    std::shared_ptr<allocator> alloc;
    /// What keeps borrowed memory alive (`borrow`); null otherwise.
    std::shared_ptr<const void> lender;
    size_t bytes = 0;
    /// Room for `inline_bytes` at a 64-byte boundary, as an allocator's
    /// blocks (the body itself is 16-byte aligned).
    alignas(16) unsigned char local[inline_bytes + 48];

    body() = default;
    body(const body&) = delete;
    body& operator=(const body&) = delete;
    ~body();

    /// The body that owns the elements.
    const body* owner() const noexcept {
      return base ? base.get() : this;
    }
  };

  explicit tensor(std::shared_ptr<body> b) : body_(std::move(b)) {
    // nop
  }

  /// The shape of a tensor without a body (a scalar's).
  static const core::shape& no_shape() noexcept;

  std::shared_ptr<body> body_;
};

} // namespace actorflow::core
