#pragma once

// `actorflow train`'s subcommand for the energy models, rbm and autoencoder:
// its flags and defaults.

#include <CLI/CLI.hpp>

#include "common/command.hpp"

namespace actorflow::apps {

/// Adds the subcommand(s) of the energy models, rbm and autoencoder to `train`.
void add_energy_train(CLI::App& train, command_list* out);

} // namespace actorflow::apps
