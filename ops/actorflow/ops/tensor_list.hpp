#pragma once

#include <string>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/core/variant.hpp"

namespace actorflow::ops {

/// TensorFlow 2's TensorList: the value of a `variant` tensor that the
/// TensorList ops pass from one to the next (what `tf.TensorArray` becomes
/// inside a `tf.function`, and what a TF2 loop accumulates into).
///
/// A list is immutable once shared: an op that changes one makes a new
/// one, sharing the items' buffers, or changes it in place when it holds
/// the only reference.
class tensor_list : public core::variant_value {
public:
  tensor_list(core::dtype element_dtype, core::shape element_shape)
    : element_dtype_(element_dtype), element_shape_(std::move(element_shape)) {
    // nop
  }

  core::dtype element_dtype() const noexcept {
    return element_dtype_;
  }

  /// The shape every item has, possibly partial.
  const core::shape& element_shape() const noexcept {
    return element_shape_;
  }

  /// The items; an invalid tensor is an item never set (it reads as zeros
  /// of the element shape).
  std::vector<core::tensor>& items() noexcept {
    return items_;
  }

  const std::vector<core::tensor>& items() const noexcept {
    return items_;
  }

  std::string debug_string() const override;

private:
  core::dtype element_dtype_;
  core::shape element_shape_;
  std::vector<core::tensor> items_;
};

} // namespace actorflow::ops
