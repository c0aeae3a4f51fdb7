#pragma once

// `actorflow sample`: text a trained char-RNN generates.

#include "common/command.hpp"
#include <cstdint>
#include <string>

namespace actorflow::apps {

/// Options of `actorflow sample`.
struct sample_options {
  /// What `actorflow train char-rnn --checkpoint-dir` was given (or the
  /// char-rnn folder in it).
  std::string checkpoint_dir = "checkpoints";
  std::string prime = "The ";
  /// Characters to generate after the prime.
  int length = 400;
  /// Divides the logits: below 1 more likely characters, above 1 more
  /// varied ones.
  double temperature = 1.0;
  /// Seed of the sampling; 0: a new one each run.
  uint64_t seed = 0;
  int threads = 0;
};

/// Prints the prime and `length` characters the newest checkpoint of a
/// char-RNN generates after it. Returns the exit code.
int run_sample(const sample_options& options);

/// Adds `actorflow sample` to `app`.
void add_sample_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
