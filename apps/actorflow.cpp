// The `actorflow` command line tool.

#include <cstdio>
#include <cstdlib>

#include <CLI/CLI.hpp>

#include "actorflow/core/logging.hpp"
#include "demo.hpp"
#include "op_list.hpp"

int main(int argc, char** argv) {
  CLI::App app{"actorflow: an actor-native dataflow engine for machine "
               "learning graphs"};
  app.require_subcommand(1);
  std::string log_level;
  app.add_option("--log-level", log_level,
                 "trace, debug, info, warn (default), error, critical or off; "
                 "ACTORFLOW_LOG_LEVEL sets it too");
  actorflow::apps::demo_options demo;
  auto* demo_cmd = app.add_subcommand(
    "demo", "Run the white paper's Figure 1 graph, relu(matmul(W, x) + b), "
            "split over cpu:0 and cpu:1");
  demo_cmd->add_option("--steps", demo.steps, "Steps to run")
    ->check(CLI::PositiveNumber);
  demo_cmd->add_option("--batch", demo.batch, "Columns of x")
    ->check(CLI::PositiveNumber);
  actorflow::apps::op_list_options list;
  auto* ops_cmd = app.add_subcommand(
    "ops", "List the registered ops: inputs, outputs and attrs with their "
           "allowed dtypes and defaults");
  ops_cmd->add_option("name", list.name, "Show only this op");
  ops_cmd->add_flag("--markdown", list.markdown,
                    "Print a Markdown table (docs/ops.md is this output)");
  ops_cmd->add_flag("--internal", list.internal,
                    "Include the runtime's internal ops (_Send, _Recv, ...)");
  CLI11_PARSE(app, argc, argv);
  if (!log_level.empty() && !actorflow::core::set_log_level(log_level)) {
    std::fprintf(stderr, "unknown log level '%s'\n", log_level.c_str());
    return EXIT_FAILURE;
  }
  if (demo_cmd->parsed())
    return actorflow::apps::run_demo(demo);
  if (ops_cmd->parsed())
    return actorflow::apps::list_ops(list);
  return EXIT_FAILURE;
}
