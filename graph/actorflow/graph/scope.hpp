#pragma once

#include <memory>
#include <string>
#include <vector>

#include "actorflow/core/attr_value.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/output.hpp"

namespace actorflow::ops {
class op_registry;
} // namespace actorflow::ops

namespace actorflow::graph {

class scope;

namespace detail {
class flow_context;
struct builder_state;
/// Returns `s` referring to `state` (owning it or not); see detail::held.
scope rebind(const scope& s, std::shared_ptr<builder_state> state);
} // namespace detail

class gradient_registry;

/// Where nodes are being built: a graph under construction plus a name
/// prefix, a device request and control dependencies, as in TensorFlow's
/// C++ `Scope`.
///
/// Scopes are cheap values; `sub`, `with_device` and
/// `with_control_dependencies` return a new one that builds into the same
/// graph. Every op is checked as it is added (op, attrs, dtypes, shapes);
/// the first error is kept in `status()` with the node's name, and later
/// ops become no-ops.
///
/// The region of control flow is the graph's, as in TensorFlow: while a
/// `cond` branch or a `while_loop` condition or body is being built, every
/// node goes into it, whichever scope built it, and tensors from outside
/// come in by themselves. The arithmetic operators (`a + b`, ...) build in
/// the graph's current scope: the innermost `scope_guard`'s, or the scope
/// a branch or body function was given while it runs, else the root.
///
/// ~~~
/// graph::scope s;
/// auto W = variable(s.sub("W"), {100, 784}, dtype::float32);
/// auto b = variable(s.sub("b"), {100, 1}, dtype::float32);
/// auto x = placeholder(s.sub("x"), dtype::float32, {784, 1});
/// auto y = relu(s, matmul(s, W, x) + b);
/// ~~~
class scope {
public:
  /// Starts a new graph, checked against the built-in ops.
  scope();

  /// Starts a new graph checked against `registry`, which must outlive it.
  explicit scope(const ops::op_registry& registry);

  /// Returns a scope whose node names start with `prefix/`.
  scope sub(const std::string& prefix) const;

  /// Returns this scope without its name prefix: nodes named from the
  /// graph's root (as TensorFlow names an optimizer's slots `var/slot`).
  scope root() const;

  /// Returns this scope without its control dependencies (TensorFlow's
  /// `control_dependencies(None)`): where variables and their initial
  /// values are built, which must not wait for a training step.
  scope without_control_dependencies() const;

  /// Returns a scope whose nodes request `device` (e.g. "cpu:1").
  scope with_device(const std::string& device) const;

  /// The device its nodes request (empty: none).
  const std::string& device() const noexcept {
    return device_;
  }

  /// Returns a scope whose nodes run after `deps`.
  scope with_control_dependencies(const std::vector<operation>& deps) const;

  /// Returns a scope that builds in exactly region `ctx` (nullptr: outside
  /// any), whatever region is being built: for the builder's own nodes,
  /// such as the Enter that brings a tensor into a loop.
  scope with_flow_context(std::shared_ptr<detail::flow_context> ctx) const;

  /// Returns a scope that builds in whatever region is being built (undoes
  /// `with_flow_context`); scopes start that way.
  scope in_current_region() const;

  /// The scope the operators on `x` build in now: the innermost
  /// `scope_guard`'s, or the scope given to the branch or body function
  /// being run, else the root of `x`'s graph.
  static scope current(const output& x);

  /// Returns the first build error, naming its node.
  const core::status& status() const;

  /// Records `st` as the build error unless there is one already; for op
  /// functions that find an error before adding a node.
  void record_error(core::status st) const;

  /// Returns the first build error and forgets it, so that building goes
  /// on: for front ends that report each op's error where it happens (the
  /// Python package). A failed op leaves no node behind.
  core::status take_error() const;

  /// The region of control flow this scope builds in now, or nullptr.
  const std::shared_ptr<detail::flow_context>& flow_context() const noexcept;

  bool ok() const {
    return status().is_ok();
  }

  /// The build state every scope of this graph shares (for the builder's
  /// own code).
  const std::shared_ptr<detail::builder_state>& state() const noexcept {
    return state_;
  }

  /// The ops this graph is checked against.
  const ops::op_registry& ops() const noexcept;

  /// Returns the graph built so far.
  const graph& graph_def() const;

  /// Returns a unique node name for `hint` under this scope's prefix (the
  /// prefix itself when `hint` is empty and the prefix is unused).
  std::string unique_name(const std::string& hint) const;

  /// Returns a loop frame name under this scope's prefix that no loop of
  /// the graph uses yet (each `while_loop` is its own frame).
  std::string unique_frame_name(const std::string& hint) const;

  /// Adds a node of `op` and returns its outputs. The building block of
  /// every op function.
  std::vector<output> add_node(const std::string& op, const std::string& hint,
                               const std::vector<output>& inputs,
                               core::attr_map attrs) const;

  /// Returns output `port` of node `node` built in this graph, as `add_node`
  /// returned it, with this scope as its origin; records not_found and
  /// returns an invalid handle if there is none.
  output output_of(const std::string& node, int port = 0) const;

  /// Returns how many outputs node `node` has (0 if unknown).
  int num_outputs(const std::string& node) const;

  /// Registers `op` (an Assign, usually) with the graph's initializer.
  void add_initializer(const operation& op) const;

  /// Adds a NoOp that runs after every initializer registered so far, like
  /// TensorFlow's `global_variables_initializer`; run it as a target.
  operation initializer() const;

  /// The gradient functions `gradients` uses for this graph: the built-in
  /// ones, plus any the user adds for custom ops.
  gradient_registry& gradients() const;

  /// Like `add_node` for ops without outputs.
  operation add_operation(const std::string& op, const std::string& hint,
                          const std::vector<output>& inputs,
                          core::attr_map attrs) const;

private:
  friend class scope_guard;
  friend scope detail::rebind(const scope& s,
                              std::shared_ptr<detail::builder_state> state);

  scope(std::shared_ptr<detail::builder_state> state, std::string prefix,
        std::string device, std::vector<std::string> deps,
        std::shared_ptr<detail::flow_context> flow, bool pinned);

  std::string add(const std::string& op, const std::string& hint,
                  const std::vector<output>& inputs, core::attr_map attrs,
                  std::vector<output>* outs) const;

  std::shared_ptr<detail::builder_state> state_;
  std::string prefix_;
  std::string device_;
  std::vector<std::string> control_deps_;
  /// The region a pinned scope builds in (see `with_flow_context`).
  std::shared_ptr<detail::flow_context> flow_;
  bool pinned_ = false;
};

} // namespace actorflow::graph
