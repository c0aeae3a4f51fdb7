#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

namespace actorflow::core {

/// A tensor shape whose rank or dimensions may be unknown.
///
/// A dimension of -1 is unknown; `unknown()` has unknown rank. Tensors always
/// have fully defined shapes; partially known ones appear in shape inference.
class shape {
public:
  /// The highest rank a graph or message may give (TensorFlow's limit):
  /// decoders refuse more before building the shape.
  static constexpr size_t max_rank = 254;

  /// Constructs the shape of a scalar (rank 0).
  shape() = default;

  shape(std::initializer_list<int64_t> dims) : dims_(dims) {
    // nop
  }

  explicit shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {
    // nop
  }

  /// Returns a shape of unknown rank.
  static shape unknown() {
    shape result;
    result.known_rank_ = false;
    return result;
  }

  bool known_rank() const noexcept {
    return known_rank_;
  }

  /// Returns the rank, or -1 if unknown.
  int rank() const noexcept {
    return known_rank_ ? static_cast<int>(dims_.size()) : -1;
  }

  /// Returns dimension `i`, or -1 if unknown.
  int64_t dim(int i) const noexcept {
    return dims_[static_cast<size_t>(i)];
  }

  const std::vector<int64_t>& dims() const noexcept {
    return dims_;
  }

  /// Returns whether the rank and every dimension are known.
  bool fully_defined() const noexcept;

  /// Returns the number of elements, or -1 unless fully defined.
  int64_t num_elements() const noexcept;

  /// Returns whether `other` could describe the same tensor as this one.
  bool compatible_with(const shape& other) const noexcept;

  /// Returns the most specific shape compatible with both; requires
  /// `compatible_with(other)`.
  shape merge(const shape& other) const;

  /// Renders e.g. `[2,?,3]` or `<unknown>`.
  std::string to_string() const;

  friend bool operator==(const shape& x, const shape& y) noexcept {
    return x.known_rank_ == y.known_rank_ && x.dims_ == y.dims_;
  }

  friend bool operator!=(const shape& x, const shape& y) noexcept {
    return !(x == y);
  }

  /// Writes `to_string()`, so that test failures print shapes.
  friend std::ostream& operator<<(std::ostream& out, const shape& x);

private:
  std::vector<int64_t> dims_;
  bool known_rank_ = true;
};

} // namespace actorflow::core
