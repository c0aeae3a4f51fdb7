#pragma once

// The models of `actorflow train`, listed in one place (as ops::register_ops
// lists the op families): a new model adds its folder models/X/ and a line
// in models.cpp.

#include <CLI/CLI.hpp>

#include "common/command.hpp"

namespace actorflow::apps {

/// Adds every model's subcommand to `train` (`actorflow train MODEL`).
void add_train_models(CLI::App& train, command_list* out);

/// Adds the commands of models beside `actorflow train` to `app`
/// (`actorflow sample`).
void add_model_commands(CLI::App& app, command_list* out);

} // namespace actorflow::apps
