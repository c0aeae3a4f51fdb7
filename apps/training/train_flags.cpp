// The families of flags `actorflow train`'s models share, and running a
// model that the training job trains.

#include "training/train_flags.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "common/flags.hpp"

namespace actorflow::apps {

namespace {

/// Fails with `actorflow train: <what>`.
int refuse(const std::string& what) {
  std::fprintf(stderr, "actorflow train: %s\n", what.c_str());
  return EXIT_FAILURE;
}

} // namespace

void add_schedule_flags(CLI::App* cmd, train_options* o) {
  cmd->add_option("--lr,--learning-rate", o->learning_rate, "Learning rate")
    ->capture_default_str()
    ->check(finite_positive());
  cmd->add_option("--epochs", o->epochs, "Epochs in all")
    ->capture_default_str()
    ->check(int_range(1, 100'000));
  cmd->add_option("--batch", o->batch, "Examples per step")
    ->capture_default_str()
    ->check(int_range(1, 1 << 20));
  add_threads_option(cmd, &o->threads);
  cmd
    ->add_option("--seed", o->seed,
                 "Seed of the initial weights and the data order")
    ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "Print only the final JSON line");
}

void add_image_flags(CLI::App* cmd, train_options* o,
                     const std::string& hidden_help) {
  cmd->add_option("--data-dir", o->data_dir,
                  "Where the dataset's .gz files are (default: "
                  "/usr/share/datasets/fashion-mnist)");
  cmd->add_option("--hidden", o->hidden, hidden_help)
    ->delimiter(',')
    ->capture_default_str()
    ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
}

void add_job_flags(CLI::App* cmd, train_options* o,
                   const std::string& checkpoint_help) {
  cmd->add_option("--optimizer", o->optimizer, "The optimizer")
    ->capture_default_str()
    ->check(CLI::IsMember(
      {"sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam"}));
  cmd
    ->add_option("--device", o->device,
                 "Where the model runs: cpu, or gpu (gpu:0; a build with "
                 "CUDA and a GPU)")
    ->check(CLI::IsMember({"cpu", "gpu"}))
    ->capture_default_str();
  add_graph_passes_option(cmd, &o->passes);
  cmd->add_option("--checkpoint-dir", o->checkpoint_dir, checkpoint_help)
    ->capture_default_str();
  cmd->add_option("--keep", o->keep, "Checkpoints to keep")
    ->capture_default_str()
    ->check(int_range(1, 1'000'000));
  cmd->add_flag("--resume", o->resume,
                "Continue from the newest checkpoint; one that does "
                "not fit the model stops the job");
  auto* trace = cmd->add_option(
    "--trace", o->trace,
    "Write a Chrome trace of the steps --trace-steps to this file (open it "
    "in ui.perfetto.dev or chrome://tracing); with --cluster, the chief "
    "writes it");
  cmd->add_option(
    "--logdir", o->logdir,
    "Write TensorBoard event files here: the graph, the loss and a "
    "histogram of every weight every --summary-every steps, test accuracy "
    "and samples/s every epoch (with --cluster, the chief writes them)");
  cmd
    ->add_option("--summary-every", o->summary_every,
                 "With --logdir: steps between summaries")
    ->capture_default_str()
    ->check(int_range(1, 1'000'000'000));
  cmd
    ->add_option("--trace-steps", o->trace_steps,
                 "With --trace: the training steps FIRST:END to trace, END "
                 "excluded, counted from 0 in the whole run (default 10:15)")
    ->delimiter(':')
    ->capture_default_str()
    ->check(CLI::NonNegativeNumber)
    ->needs(trace);
  auto* cluster
    = cmd
        ->add_option("--cluster", o->cluster.file,
                     "Train over the cluster of this file (jobs ps and "
                     "worker), between-graph replicated: variables on ps:0, "
                     "each worker its shard of each batch")
        ->check(CLI::ExistingFile);
  auto* task
    = cmd
        ->add_option("--task", o->cluster.task,
                     "With --cluster: this process's task, ps:0 or worker:N "
                     "(worker:0 is the chief: it initialises and checkpoints)")
        ->needs(cluster);
  cluster->needs(task);
  cmd->add_flag("--sync", o->sync,
                "With --cluster: synchronous training, the workers' mean "
                "gradient applied once per step (default: each worker "
                "applies its own, asynchronously)");
  cmd
    ->add_option("--strategy", o->strategy,
                 "With --cluster: ps (the variables on the ps tasks; "
                 "default) or allreduce (no ps: every worker holds the "
                 "variables and applies the mean gradient of all, summed "
                 "by a ring among the workers; synchronous)")
    ->check(CLI::IsMember({"ps", "allreduce"}));
  cmd
    ->add_option_function<std::string>(
      "--wire-dtype",
      [o](const std::string& name) {
        o->wire_dtype
          = name == "float32" ? core::dtype::invalid : *core::parse_dtype(name);
      },
      "With --cluster: float32 activations and gradients travel between "
      "processes as this, cast back on arrival (half the bytes; default "
      "float32: as they are)")
    ->check(CLI::IsMember({"float32", "bfloat16", "float16"}));
  cmd->add_flag("--schedule-recvs", o->schedule_recvs,
                "With --cluster: a value sent to another process leaves only "
                "when that process is about to need it, as late as possible "
                "(TensorFlow's recv scheduling; default: as soon as it is "
                "made)");
  cmd
    ->add_option("--metrics-port", o->metrics_port,
                 "With --cluster: serve Prometheus metrics at "
                 "http://HOST:PORT/metrics on the task's host (0: any free "
                 "port; docs/observability.md)")
    ->check(int_range(0, 65535));
  add_cluster_source_options(cmd, &o->cluster, cluster, task, true);
}

int run_job_model(const CLI::App& cmd, const train_options& o) {
  if (!o.cluster.given())
    for (const auto* flag : {"--sync", "--strategy", "--wire-dtype",
                             "--schedule-recvs", "--metrics-port"})
      if (cmd.count(flag) > 0)
        return refuse(std::string{flag}
                      + " needs --cluster F --task T, --from-tf-config or "
                        "--from-slurm");
  return run_train(o);
}

} // namespace actorflow::apps
