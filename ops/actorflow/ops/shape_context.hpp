#pragma once

#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/ops/attr_reader.hpp"

namespace actorflow::ops {

/// What a shape function sees: the node, its input shapes (possibly partly
/// unknown) and the output shapes it must set (unknown by default).
class shape_context : public attr_reader {
public:
  shape_context(const core::node_def& node, std::vector<core::shape> inputs,
                size_t num_outputs);

  const core::node_def& node() const noexcept {
    return node_;
  }

  size_t num_inputs() const noexcept {
    return inputs_.size();
  }

  const core::shape& input(size_t i) const noexcept {
    return inputs_[i];
  }

  /// Returns the value of input `i` when it is known while the graph is
  /// built (a constant), or nullptr.
  const core::tensor* input_tensor(size_t i) const noexcept {
    return i < values_.size() && values_[i].valid() ? &values_[i] : nullptr;
  }

  /// Makes the value of input `i` known to the shape function.
  void set_input_tensor(size_t i, core::tensor value);

  /// Reads input `i` as a list of int32/int64 values when it is known;
  /// returns false when it is not (or is not an integer vector/scalar).
  bool input_ints(size_t i, std::vector<int64_t>* out) const;

  void set_output(size_t i, core::shape s) {
    outputs_[i] = std::move(s);
  }

  const std::vector<core::shape>& outputs() const noexcept {
    return outputs_;
  }

private:
  const core::node_def& node_;
  std::vector<core::shape> inputs_;
  std::vector<core::shape> outputs_;
  std::vector<core::tensor> values_;
};

/// Shape function: every output has the shape of input 0.
core::status unchanged_shape(shape_context& ctx);

/// Shape function: output 0 has the shape given by attr `shape`.
core::status shape_from_attr(shape_context& ctx);

/// Shape function: NumPy broadcasting of inputs 0 and 1.
core::status broadcast_shape(shape_context& ctx);

/// Computes the shape of reducing `in` over `axes` (negative ones count
/// from the end; repeats are fine), keeping reduced axes as 1 with
/// `keep_dims`; marks the reduced axes in `reduced` when given. An axis out
/// of range is `invalid_argument`.
core::status reduced_shape(const core::shape& in,
                           const std::vector<int64_t>& axes, bool keep_dims,
                           core::shape* out,
                           std::vector<bool>* reduced = nullptr);

/// Computes the NumPy broadcast of two (possibly partly unknown) shapes.
core::status broadcast_shapes(const core::shape& x, const core::shape& y,
                              core::shape* out);

} // namespace actorflow::ops
