#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::ops {

/// How a tensor array is made (TensorArrayV3's attrs and size).
struct tensor_array_options {
  std::string name;
  core::dtype type = core::dtype::invalid;
  int64_t size = 0;
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
  /// The shape every element must be compatible with; unknown by default.
  core::shape element_shape = core::shape::unknown();
  /// A gradient array: a second write to an index adds to the first, and
  /// reads past the end are zeros.
  bool aggregate_writes = false;
};

/// An array of tensors that lives for one step (TensorFlow's TensorArray),
/// where a loop collects per-iteration values or reads a sequence.
///
/// Each index is written once (a gradient array adds further writes) and
/// before it is read; with `clear_after_read`, read once. As in
/// TensorFlow, an index never written reads as zeros where the element
/// shape is fully defined (a gradient array knows the shape of each element
/// the forward array wrote) and fails otherwise. All members lock; kernels
/// of several iterations may call them at once.
class tensor_array {
public:
  explicit tensor_array(tensor_array_options opts);

  const std::string& name() const noexcept {
    return opts_.name;
  }

  core::dtype type() const noexcept {
    return opts_.type;
  }

  /// Writes `value` at `index`, growing a dynamic-size array.
  core::status write(int64_t index, const core::tensor& value);

  /// Reads the element at `index` into `out`.
  core::status read(int64_t index, core::tensor* out);

  /// Reads the elements at `indices` in order (for Gather, Concat, Stack).
  core::status read_many(const std::vector<int64_t>& indices,
                         std::vector<core::tensor>* out);

  /// Returns the current size.
  core::status size(int64_t* out) const;

  /// The element shape known so far: the declared one, or that of the
  /// elements written when they must be identical.
  core::shape element_shape() const;

  /// Drops the elements; later operations fail.
  void close();

  /// Makes this (gradient) array know the shapes of what `forward` wrote,
  /// each after `prepend`: those indices read as zeros until written.
  core::status copy_shapes_from(const tensor_array& forward,
                                const std::vector<int64_t>& prepend);

private:
  struct element {
    core::tensor value; ///< Invalid once cleared, or when only `shape` is.
    core::shape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  core::status check_open() const;
  core::status read_locked(int64_t index, core::tensor* out);

  tensor_array_options opts_;
  mutable std::mutex mtx_;
  std::vector<element> items_;
  bool closed_ = false;
};

} // namespace actorflow::ops
