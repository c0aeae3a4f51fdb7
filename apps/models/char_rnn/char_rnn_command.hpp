#pragma once

// `actorflow train`'s subcommand for the character-level language model: its
// flags and defaults.

#include <CLI/CLI.hpp>

#include "common/command.hpp"

namespace actorflow::apps {

/// Adds the subcommand(s) of the character-level language model to `train`.
void add_char_rnn_train(CLI::App& train, command_list* out);

} // namespace actorflow::apps
