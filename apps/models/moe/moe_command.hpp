#pragma once

// `actorflow train`'s subcommand for the mixture of experts: its flags and
// defaults.

#include <CLI/CLI.hpp>

#include "common/command.hpp"

namespace actorflow::apps {

/// Adds the subcommand(s) of the mixture of experts to `train`.
void add_moe_train(CLI::App& train, command_list* out);

} // namespace actorflow::apps
