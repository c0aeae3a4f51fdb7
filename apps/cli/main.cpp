// The `actorflow` command line tool: the subcommands, each added by the
// file that runs it, and the flags every one of them takes.

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>
#include <caf/config.hpp>

#include "actorflow/core/build_info.hpp"
#include "actorflow/core/logging.hpp"
#include "cli/benchmark.hpp"
#include "cli/demo.hpp"
#include "cli/graph_show.hpp"
#include "cli/op_list.hpp"
#include "cli/run.hpp"
#include "cli/saved_model.hpp"
#include "cli/train.hpp"
#include "cluster/cluster_up.hpp"
#include "cluster/worker.hpp"
#include "common/command.hpp"
#include "models/models.hpp"

namespace {

using namespace actorflow::apps;

/// Raises this process's open-file limit to its hard limit, as Go's
/// runtime does: every connection to another task is a file, and the soft
/// limit (often 1,024) is too few for a cluster of a thousand tasks. The
/// hard limit is the administrator's; an error that meets it says so
/// (connect_error_text).
void raise_open_file_limit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0
      && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
}

/// Adds `--log-level` to `cmd`: before or after a subcommand's name, where
/// users put it.
void add_log_level(CLI::App* cmd, std::string* level) {
  cmd->add_option("--log-level", *level,
                  "trace, debug, info, warn (default), error, critical or "
                  "off; ACTORFLOW_LOG_LEVEL sets it too");
}

int run(int argc, char** argv) {
  CLI::App app{"actorflow: an actor-native dataflow engine for machine "
               "learning graphs"};
  app.require_subcommand(1);
  app.set_version_flag(
    "--version", std::string{"actorflow "} + ACTORFLOW_VERSION + " (CAF "
                   + std::to_string(CAF_MAJOR_VERSION) + "."
                   + std::to_string(CAF_MINOR_VERSION) + "."
                   + std::to_string(CAF_PATCH_VERSION) + ", "
                   + actorflow::core::library_build_info().to_string() + ")");
  command_list commands;
  add_demo_command(app, &commands);
  add_ops_command(app, &commands);
  add_train_command(app, &commands);
  add_model_commands(app, &commands);
  add_worker_command(app, &commands);
  add_cluster_command(app, &commands);
  add_run_command(app, &commands);
  add_benchmark_command(app, &commands);
  add_graph_command(app, &commands);
  add_show_command(app, &commands);
  std::string log_level;
  add_log_level(&app, &log_level);
  for (const auto& c : commands)
    add_log_level(c.cli, &log_level);
  CLI11_PARSE(app, argc, argv);
  raise_open_file_limit();
  if (!log_level.empty() && !actorflow::core::set_log_level(log_level)) {
    std::fprintf(stderr, "unknown log level '%s'\n", log_level.c_str());
    return EXIT_FAILURE;
  }
  // A nested command comes after its parent: the last parsed is the one
  // the line names.
  for (auto i = commands.rbegin(); i != commands.rend(); ++i)
    if (i->cli->parsed())
      return i->run();
  return EXIT_FAILURE;
}

} // namespace

int main(int argc, char** argv) {
  // Library code reports errors as statuses; anything thrown that gets here
  // is reported the same way rather than aborting the process.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "actorflow: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "actorflow: %s\n", e.what());
  }
  return EXIT_FAILURE;
}
