#pragma once

/// TensorFlow's function library as the importers read it: functions
/// by name, each a body between arguments and results.

#include <map>
#include <string>
#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::interop::tensorflow::detail {

/// A function of TensorFlow's function library in the engine's IR: a body
/// of nodes between arguments and results, which `expand_functions`
/// inlines where it is called.
///
/// Body nodes read argument `i` by its name `arg_names[i]` (port 0) and
/// other body nodes as graph nodes do (`node:port`, `^node`).
struct function_def {
  std::string name;
  std::vector<std::string> arg_names;
  std::vector<core::dtype> arg_types;
  /// The body tensor (or argument name) that yields each result.
  std::vector<std::string> results;
  std::vector<core::dtype> result_types;
  /// The body nodes a call's control consumers wait for (its side
  /// effects).
  std::vector<std::string> control_results;
  std::vector<core::node_def> nodes;
};

/// Functions by name: what the calls of a graph (PartitionedCall, While,
/// If, Case, a node whose op names a function) refer to.
class function_library {
public:
  /// Adds `f`; a second function of the same name is `invalid_argument`.
  core::status add(function_def f);

  /// The function named `name`, or nullptr.
  const function_def* find(const std::string& name) const;

  bool empty() const noexcept {
    return functions_.empty();
  }

  const std::map<std::string, function_def>& functions() const noexcept {
    return functions_;
  }

private:
  std::map<std::string, function_def> functions_;
};

} // namespace actorflow::interop::tensorflow::detail
