#pragma once

// A subcommand of the `actorflow` tool: the flags it registers and what
// runs it.

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace actorflow::apps {

/// One subcommand the tool can run: its parser and what runs it.
struct command {
  /// The subcommand's parser; for a nested one, the leaf (`graph show`).
  CLI::App* cli = nullptr;
  /// Runs it once the line is parsed into its flags; returns the exit code.
  std::function<int()> run;
};

/// The subcommands, in the order they were added.
using command_list = std::vector<command>;

} // namespace actorflow::apps
