#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/core/attr_value.hpp"
#include "actorflow/core/dtype.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::core {
struct node_def;
} // namespace actorflow::core

namespace actorflow::ops {

class shape_context;

/// One input or output of an op: a fixed dtype or the name of a type attr,
/// possibly a reference (to a variable), possibly a list of as many tensors
/// as an int attr says (`values: N * T`).
struct arg_def {
  std::string name;
  core::dtype type = core::dtype::invalid; ///< Set if fixed.
  std::string type_attr;                   ///< Set if given by an attr.
  std::string number_attr;                 ///< Set for a list argument.
  bool is_ref = false;
};

/// One attribute of an op: its type name ("int", "type", "list(int)", ...),
/// an optional default and, for type attrs, the allowed dtypes.
struct attr_def {
  std::string name;
  std::string type;
  std::optional<core::attr_value> default_value;
  std::vector<core::dtype> allowed;
};

/// The resolved dtype of one input or output of a node.
struct arg_type {
  core::dtype type = core::dtype::invalid;
  bool is_ref = false;

  friend bool operator==(const arg_type& x, const arg_type& y) {
    return x.type == y.type && x.is_ref == y.is_ref;
  }
};

/// The interface of an op: typed inputs and outputs, attrs with defaults and
/// constraints, and a shape function. Build one with `op_def_builder`.
struct op_def {
  using shape_fn = std::function<core::status(shape_context&)>;

  std::string name;
  std::vector<arg_def> inputs;
  std::vector<arg_def> outputs;
  std::vector<attr_def> attrs;
  shape_fn shape_function;
  bool is_stateful = false;

  /// Returns the attr named `name`, or nullptr.
  const attr_def* find_attr(const std::string& name) const;

  /// Checks `attrs` against the declared ones (types, allowed dtypes,
  /// unknown names) and fills in defaults. Attrs starting with '_' are
  /// internal and pass unchecked.
  core::status check_attrs(core::attr_map& attrs) const;

  /// The most arguments one input or output may stand for: a number attr
  /// (`N` of AddN, `num_split` of Split) or a list(type) attr above it
  /// is refused before anything is allocated for it.
  static constexpr int64_t max_args = int64_t{1} << 20;

  /// Resolves the dtypes of inputs and outputs from checked attrs.
  core::status resolve_types(const core::attr_map& attrs,
                             std::vector<arg_type>* in,
                             std::vector<arg_type>* out) const;
};

} // namespace actorflow::ops
