#pragma once

#include <string>

#include "actorflow/ops/op_def.hpp"

namespace actorflow::ops {

/// Declares an op with TensorFlow-style spec strings:
///
/// ~~~
/// op_def_builder("MatMul")
///   .input("a: T").input("b: T").output("product: T")
///   .attr("T: {float, double, int32}")
///   .attr("transpose_a: bool = false")
///   .shape_fn(matmul_shape)
/// ~~~
///
/// Inputs and outputs are `name: dtype`, `name: Attr`, `name: Ref(Attr)` or,
/// for a list of as many tensors as int attr N says, `name: N * Attr`.
/// Attrs are `name: type` with an optional `= default`; a type attr may list
/// its allowed dtypes in braces. A malformed spec is reported by `finish`.
class op_def_builder {
public:
  explicit op_def_builder(std::string name);

  op_def_builder& input(std::string_view spec);
  op_def_builder& output(std::string_view spec);
  op_def_builder& attr(std::string_view spec);
  op_def_builder& shape_fn(op_def::shape_fn f);
  op_def_builder& stateful();

  /// Returns the finished op, or the first spec error.
  core::status finish(op_def* out) const;

private:
  op_def def_;
  core::status error_;
};

} // namespace actorflow::ops
