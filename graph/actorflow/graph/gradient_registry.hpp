#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/ops/attr_reader.hpp"

namespace actorflow::graph {

class scope;

/// What a gradient function sees of the forward node it differentiates.
struct gradient_op {
  /// The forward node.
  const core::node_def& node;
  /// Its data inputs, as the builder made them.
  std::vector<output> inputs;
  /// Its outputs.
  std::vector<output> outputs;

  /// Returns attr `name` of the forward node, or `fallback`.
  template <class T>
  T attr_or(const std::string& name, T fallback) const {
    return ops::attr_reader{node.attrs}.attr_or(name, std::move(fallback));
  }
};

/// Builds the gradients of a node's data inputs from the gradients of its
/// outputs, in scope `s`.
///
/// `grads` has one entry per output: the summed gradient flowing back into
/// it, zeros for a floating output nothing differentiated consumed, and an
/// invalid handle for the others. The function sets one entry of
/// `input_grads` per data input; an invalid handle means "no gradient"
/// (an index, a shape, a non-differentiable argument).
using gradient_fn = std::function<core::status(
  const scope& s, const gradient_op& op, const std::vector<output>& grads,
  std::vector<output>* input_grads)>;

/// The gradient function of each differentiable op, by op name, as
/// TensorFlow's gradient registry.
///
/// Every graph has one (`scope::gradients()`), made with the built-in
/// functions on first use; add functions there for custom ops.
class gradient_registry {
public:
  /// Returns a registry with a gradient function for every differentiable
  /// op of the built-in op library (docs/gradients.md lists them).
  static gradient_registry with_builtins();

  /// Registers (or replaces) the gradient function of `op`.
  void add(const std::string& op, gradient_fn fn);

  /// Registers `op` as not differentiable: its inputs get no gradient.
  void add_not_differentiable(const std::string& op);

  /// Returns the gradient function of `op`, or nullptr.
  const gradient_fn* find(const std::string& op) const;

  /// Returns the ops with a gradient function, sorted.
  std::vector<std::string> names() const;

private:
  std::unordered_map<std::string, gradient_fn> fns_;
};

} // namespace actorflow::graph
