#pragma once

#include <memory>

#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// Makes a scope the one that the arithmetic operators build in while the
/// guard lives, like TensorFlow's `with tf.device(...)` or
/// `with tf.name_scope(...)`; guards nest, the innermost wins.
///
/// Op functions build in the scope they are given; the operators, which
/// take none, build in the graph's current scope (`scope::current`). Inside
/// a `cond` branch or a `while_loop` body that is the scope the function was
/// given, unless a guard made inside it says otherwise.
///
/// ~~~
/// {
///   graph::scope_guard on_cpu1{s.with_device("cpu:1")};
///   auto z = x * y + b; // Mul and Add request cpu:1
/// }
/// auto w = x - y;       // Sub requests no device
/// ~~~
class scope_guard {
public:
  explicit scope_guard(const scope& s);

  scope_guard(const scope_guard&) = delete;
  scope_guard& operator=(const scope_guard&) = delete;

  ~scope_guard();

private:
  scope scope_;
  const scope* previous_;
};

} // namespace actorflow::graph
