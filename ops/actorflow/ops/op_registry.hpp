#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "actorflow/ops/op_def.hpp"
#include "actorflow/ops/op_def_builder.hpp"

namespace actorflow::ops {

/// Op definitions by name. An engine owns one; nothing registers itself.
class op_registry {
public:
  /// Adds the op built by `b`; fails on a spec error or a duplicate name.
  core::status add(const op_def_builder& b);

  /// Returns the op named `name`, or nullptr.
  const op_def* find(const std::string& name) const;

  /// Returns every registered op name, sorted.
  std::vector<std::string> names() const;

private:
  std::unordered_map<std::string, op_def> ops_;
};

} // namespace actorflow::ops
