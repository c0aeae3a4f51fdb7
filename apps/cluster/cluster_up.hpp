#pragma once

// `actorflow cluster up`: every task of a cluster file on this machine.

#include "common/command.hpp"
#include <string>
#include <vector>

namespace actorflow::apps {

/// Options of `actorflow cluster up`.
struct cluster_up_options {
  std::string config;
  /// What each task runs: `actorflow <command...> --cluster F --task T`
  /// (e.g. `train fashion-mnist --sync`); empty: `actorflow worker`.
  std::vector<std::string> command;
  /// Restarts in a row after which it gives up.
  int max_restarts = 5;
  bool quiet = false;
};

/// Starts every task of a cluster file on this machine, prints one status
/// line per task and each child's output prefixed with its task, and
/// supervises them: a plain worker that dies is started again (sessions
/// connect to it anew); when a task of a command dies, the whole job is
/// stopped and started again, a training job with `--resume` so that it
/// continues from its last checkpoint, after a back-off that doubles from
/// 0.5 s to 8 s. It ends when every worker task of a command has exited
/// 0 (exit 0), on SIGINT or SIGTERM (stops every task, exit 0), or after
/// `max_restarts` restarts in a row (exit 1). Returns the exit code.
int run_cluster_up(const cluster_up_options& options);

/// Adds `actorflow cluster up` to `app`.
void add_cluster_command(CLI::App& app, command_list* out);

} // namespace actorflow::apps
