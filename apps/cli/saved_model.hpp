#pragma once

// `actorflow run --saved-model` and `actorflow show --saved-model`.

#include "common/command.hpp"
#include <string>
#include <vector>

namespace actorflow::apps {

/// Options of the SavedModel forms of `actorflow run` and `show`.
struct saved_model_options {
  std::string dir; ///< The SavedModel directory.
  std::string signature = "serving_default";
  std::vector<std::string> tags{"serve"};
  std::vector<std::string> feeds;   ///< `key=file.npy`
  std::vector<std::string> fetches; ///< `key` or `key=file.npy`; none: all
  int runs = 1;                     ///< Runs of the signature, in order.
  /// Then write the model, its variables as the runs left them, here.
  std::string export_dir;
  int threads = 0;
};

/// Loads the SavedModel, restores its variables and runs the signature
/// `runs` times with the feeds (from `.npy` files, by input key); prints
/// the last run's outputs (those fetched, or all) and writes the ones
/// given a file; then exports the model to `export_dir` if given. Returns
/// the exit code.
int run_saved_model(const saved_model_options& options);

/// Prints the SavedModel's signatures, their inputs and outputs, and the
/// ops it uses that the engine lacks. Returns the exit code.
int show_saved_model(const saved_model_options& options);

/// Adds `actorflow show --saved-model` to `app`.
void add_show_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
