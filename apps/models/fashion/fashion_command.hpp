#pragma once

// `actorflow train`'s subcommand for Fashion-MNIST's classifiers: its flags and
// defaults.

#include <CLI/CLI.hpp>

#include "common/command.hpp"

namespace actorflow::apps {

/// Adds the subcommand(s) of Fashion-MNIST's classifiers to `train`.
void add_fashion_train(CLI::App& train, command_list* out);

} // namespace actorflow::apps
