#pragma once

// `actorflow ops`: the registered ops, or those a GraphDef lacks here.

#include "common/command.hpp"
#include <string>

namespace actorflow::apps {

/// Options of `actorflow ops`.
struct op_list_options {
  std::string name;      ///< Only this op, when set.
  bool markdown = false; ///< A Markdown table (docs/ops.md) instead of text.
  bool internal = false; ///< Include the runtime's ops (names with '_').
  /// A GraphDef file: list the ops it uses that actorflow lacks instead.
  std::string missing;
};

/// Prints the registered ops with their inputs, outputs and attrs, or the
/// ops a GraphDef file needs that are not registered (exit code 1 when
/// there are any). Returns the exit code.
int list_ops(const op_list_options& options);

/// Adds `actorflow ops` to `app`.
void add_ops_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
