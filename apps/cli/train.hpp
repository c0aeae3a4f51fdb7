#pragma once

// `actorflow train`: a subcommand per model (models/models.cpp lists
// them), and the errors for flags given to the wrong model.

#include <CLI/CLI.hpp>

#include "common/command.hpp"

namespace actorflow::apps {

/// Adds `actorflow train` and its models to `app`: `train` first, then a
/// command per model.
void add_train_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
