#pragma once

#include <memory>
#include <string>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// A TensorArray as TensorFlow's `tf.TensorArray`: a handle to an array of
/// tensors that lives for one step, and a flow, a float scalar that orders
/// the operations on it. Writes return a new value with the next flow; a
/// while loop carries `flow()` as a loop variable and rebuilds the array in
/// its body with `with_flow`. Gradients (`graph::gradients`) go through
/// every operation, as TensorFlow's: a gradient array holds what flows back
/// into each element.
///
/// ~~~
/// auto ta = tensor_array::make(s, n, {core::dtype::float32});
/// auto out = while_loop(s, cond, [&](const scope& b, const auto& v) {
///   auto t = ta.with_flow(v[1]);
///   return std::vector<output>{v[0] + 1, t.write(b, v[0], f(b, v[0])).flow()};
/// }, {i0, ta.flow()});
/// auto all = ta.with_flow(out[1]).stack(s);   // [n, ...]
/// ~~~
class tensor_array {
public:
  /// How the array is made (TensorArrayV3's attrs).
  struct options {
    options(core::dtype t) : type(t) { // NOLINT: implicit on purpose
      // nop
    }
    core::dtype type;
    /// Writes past the end grow the array.
    bool dynamic_size = false;
    /// A read drops the element (reading it again fails).
    bool clear_after_read = true;
    /// Every element has one shape: learnt from the first write.
    bool infer_shape = true;
    /// The shape of every element, where known in advance.
    core::shape element_shape = core::shape::unknown();
    std::string name;
  };

  tensor_array() = default;

  /// A new array of `size` elements (a scalar int32 tensor).
  static tensor_array make(const scope& s, const output& size, options o);

  /// A new array of `size` elements.
  static tensor_array make(const scope& s, int64_t size, options o);

  bool valid() const noexcept {
    return handle_.valid() && flow_.valid();
  }

  const output& handle() const noexcept {
    return handle_;
  }

  const output& flow() const noexcept {
    return flow_;
  }

  core::dtype dtype() const noexcept {
    return info_ ? info_->type : core::dtype::invalid;
  }

  /// The element shape known so far (declared, or that of the writes).
  core::shape element_shape() const;

  /// The same array at another point of its flow (a loop's variable).
  tensor_array with_flow(const output& flow) const;

  /// The element at `index` (an int32 scalar).
  output read(const scope& s, const output& index) const;

  /// Writes `value` at `index`.
  tensor_array write(const scope& s, const output& index,
                     const output& value) const;

  /// The elements at `indices`, stacked along a new first dimension.
  output gather(const scope& s, const output& indices) const;

  /// Every element, stacked along a new first dimension.
  output stack(const scope& s) const;

  /// Writes row k of `value` at indices[k].
  tensor_array scatter(const scope& s, const output& indices,
                       const output& value) const;

  /// Writes row k of `value` at index k.
  tensor_array unstack(const scope& s, const output& value) const;

  /// Every element joined along its first dimension.
  output concat(const scope& s) const;

  /// Writes rows of `value` split by `lengths` (an int64 vector).
  tensor_array split(const scope& s, const output& value,
                     const output& lengths) const;

  /// The number of elements, an int32 scalar.
  output size(const scope& s) const;

  /// Drops the elements.
  operation close(const scope& s) const;

  /// The gradient array for the gradient computation `source`, ordered
  /// after `flow`.
  tensor_array grad(const scope& s, const std::string& source,
                    const output& flow) const;

  /// Wraps an existing handle and flow (the gradient functions do).
  static tensor_array wrap(output handle, output flow, core::dtype type,
                           core::shape element_shape);

private:
  /// What every copy of one array shares: its dtype and the element shape
  /// learnt so far.
  struct info {
    core::dtype type = core::dtype::invalid;
    bool infer_shape = true;
    core::shape element_shape = core::shape::unknown();
    /// The number of elements where it is fixed and known; -1 otherwise.
    int64_t size = -1;
  };

  void learn_shape(const scope& s, const core::shape& element) const;
  /// `s` on the device the array's maker asked for: the ops on an array
  /// run where it lives (placement joins them to it).
  scope on(const scope& s) const;
  output with_shape(const output& x, const core::shape& s) const;

  output handle_;
  output flow_;
  std::shared_ptr<info> info_;
};

} // namespace actorflow::graph
