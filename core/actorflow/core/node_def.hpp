#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "actorflow/core/attr_value.hpp"

namespace actorflow::core {

/// One node of a graph, as plain data: a unique name, an op type, inputs,
/// a requested device and attributes.
///
/// Inputs are written `node:port` (`node` alone means port 0) for data and
/// `^node` for control; data inputs come first.
struct node_def {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  std::string device;
  attr_map attrs;
};

/// One parsed input of a node_def.
struct input_ref {
  std::string node;
  int port = 0;
  bool control = false;

  /// Parses `node:port`, `node` or `^node`; returns false if malformed.
  static bool parse(std::string_view text, input_ref* out);

  /// Renders `node:port`, `node` for port 0 data inputs, or `^node`.
  std::string to_string() const;
};

} // namespace actorflow::core
