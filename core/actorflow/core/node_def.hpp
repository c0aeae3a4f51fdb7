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

/// Whether `input`, one of a node_def's inputs, is a control input
/// (`^node`).
inline bool is_control_input(std::string_view input) noexcept {
  return !input.empty() && input.front() == '^';
}

/// The data inputs of `node`, parsed, in order (those that do not parse
/// left out; a graph `validate` accepted has none).
std::vector<input_ref> data_inputs(const node_def& node);

/// The names of the nodes `node` has control inputs from, in order.
std::vector<std::string> control_inputs(const node_def& node);

} // namespace actorflow::core
