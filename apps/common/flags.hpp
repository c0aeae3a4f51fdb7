#pragma once

// Validators and limits for the command line's flags.

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "actorflow/actors/engine.hpp"
#include "actorflow/graph/graph_passes.hpp"

namespace actorflow::apps {

/// Accepts an integer in [lo, hi]; the message names both in plain digits.
CLI::Validator int_range(int64_t lo, int64_t hi);

/// Accepts a finite number > 0 (not nan, not inf).
CLI::Validator finite_positive();

/// Adds `--threads` (0 to `max_threads()`, 0: one per core) to `cmd`.
CLI::Option* add_threads_option(CLI::App* cmd, int* threads);

/// Adds `--graph-passes` (all, none, the passes to run, or all less
/// -NAME) to `cmd`, parsed into `passes`.
CLI::Option* add_graph_passes_option(CLI::App* cmd,
                                     graph::pass_selection* passes);

/// Adds `--graph` (a TensorFlow GraphDef or a graph file of actorflow's)
/// and `--saved-model` (a SavedModel directory, `saved_help`), which
/// exclude each other, and `--signature` (the SavedModel's signature to
/// run) to `cmd`.
void add_graph_or_saved_model_options(CLI::App* cmd, std::string* graph,
                                      std::string* saved_model,
                                      const std::string& saved_help,
                                      std::string* signature);

/// `eo` with the device and scheduler threads `--threads` asked for
/// (0: `eo`'s own).
actors::engine_options with_threads(actors::engine_options eo, int threads);

/// The most threads a flag may ask for: four per core this machine has.
int max_threads();

/// The physical memory of this machine in bytes (0 if unknown).
uint64_t physical_memory();

/// Returns an empty string if `bytes` fit in this machine's memory, else
/// a message naming `what`, the bytes needed and the bytes there are.
std::string check_fits_in_memory(double bytes, const std::string& what);

} // namespace actorflow::apps
