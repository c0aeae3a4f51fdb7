#pragma once

// The families of flags `actorflow train`'s models share (each model's
// subcommand, in models/X/, adds those it takes with its own defaults).

#include <string>

#include <CLI/CLI.hpp>

#include "common/command.hpp"
#include "training/train.hpp"

namespace actorflow::apps {

/// Adds `--epochs`, `--batch`, `--lr`, `--seed`, `--threads` and
/// `--quiet` to a model's subcommand, bound to `o` (whose values are the
/// model's defaults).
void add_schedule_flags(CLI::App* cmd, train_options* o);

/// Adds `--data-dir` (Fashion-MNIST's) and `--hidden` (`hidden_help`).
void add_image_flags(CLI::App* cmd, train_options* o,
                     const std::string& hidden_help);

/// Adds what a model trained by the training job takes (training_job.hpp):
/// `--optimizer`, `--device`, `--graph-passes`, checkpoints (`--checkpoint-dir`
/// described by `checkpoint_help`, `--keep`, `--resume`), `--trace`,
/// `--logdir`, and the cluster's flags (`--cluster`, `--task`, `--sync`,
/// `--strategy`, ...).
void add_job_flags(CLI::App* cmd, train_options* o,
                   const std::string& checkpoint_help);

/// Runs a model added with `add_job_flags` as `run_train` does, once its
/// cluster-only flags have been checked against `cmd`.
int run_job_model(const CLI::App& cmd, const train_options& o);

} // namespace actorflow::apps
