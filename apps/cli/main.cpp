// The `actorflow` command line tool.

#include <cstdio>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <caf/config.hpp>

#include "actorflow/core/build_info.hpp"
#include "cli/benchmark.hpp"

#include "actorflow/core/logging.hpp"
#include "cli/benchmark.hpp"
#include "cli/demo.hpp"
#include "cli/flags.hpp"
#include "cli/graph_show.hpp"
#include "cli/op_list.hpp"
#include "cli/run.hpp"
#include "cli/saved_model.hpp"
#include "cluster/cluster_up.hpp"
#include "cluster/worker.hpp"
#include "models/char_rnn/sample.hpp"
#include "models/energy/energy.hpp"
#include "training/train.hpp"

namespace {

using namespace actorflow::apps;

/// The flags that describe one step of a saved graph: where it runs,
/// what it is fed, what it fetches and runs (actorflow run, graph show).
void add_step_options(CLI::App* cmd, run_options* run) {
  auto* config
    = cmd
        ->add_option("--config", run->cluster.file,
                     "A cluster file (YAML): run on its workers, whose "
                     "devices the graph names (/job:J/task:T/device:cpu:N)")
        ->check(CLI::ExistingFile);
  // A client: TF_CONFIG's task is not ours to serve; a Slurm step's tasks
  // serve, they do not run graphs.
  add_cluster_source_options(cmd, &run->cluster, config, nullptr, false);
  cmd->add_option("--feed", run->feeds,
                  "name=file.npy: feed the tensor in the file to the "
                  "placeholder (or tensor) name; repeatable");
  cmd->add_option("--fetch", run->fetches,
                  "name or name=file.npy: print the tensor name (node or "
                  "node:output) and write it to the file; repeatable");
  cmd->add_option("--target", run->targets,
                  "A node to run for its effects; repeatable");
  cmd->add_option("--cpus", run->cpus, "CPU devices of this process")
    ->capture_default_str()
    ->check(int_range(1, 1024));
  add_threads_option(cmd, &run->threads);
  add_graph_passes_option(cmd, &run->passes);
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
  std::string log_level;
  app.add_option("--log-level", log_level,
                 "trace, debug, info, warn (default), error, critical or off; "
                 "ACTORFLOW_LOG_LEVEL sets it too");
  demo_options demo;
  auto* demo_cmd = app.add_subcommand(
    "demo", "Run the white paper's Figure 1 graph, relu(matmul(W, x) + b), "
            "split over cpu:0 and cpu:1");
  demo_cmd->add_option("--steps", demo.steps, "Steps to run")
    ->check(int_range(1, 1'000'000'000));
  demo_cmd->add_option("--batch", demo.batch, "Columns of x")
    ->check(int_range(1, 1 << 30));
  op_list_options list;
  auto* ops_cmd = app.add_subcommand(
    "ops", "List the registered ops: inputs, outputs and attrs with their "
           "allowed dtypes and defaults");
  ops_cmd->add_option("name", list.name, "Show only this op");
  ops_cmd->add_flag("--markdown", list.markdown,
                    "Print a Markdown table (docs/ops.md is this output)");
  ops_cmd->add_flag("--internal", list.internal,
                    "Include the runtime's internal ops (_Send, _Recv, ...)");
  ops_cmd
    ->add_option("--missing", list.missing,
                 "List the ops a TensorFlow GraphDef file (.pb, .pbtxt) "
                 "uses that actorflow lacks, with the nodes that use them; "
                 "exits 1 when there are any")
    ->check(CLI::ExistingFile);
  train_options train;
  auto* train_cmd = app.add_subcommand(
    "train", "Train a classifier on a dataset through an input queue, with "
             "a checkpoint and the test accuracy after each epoch; the last "
             "line is JSON");
  train_cmd
    ->add_option("dataset", train.dataset,
                 "fashion-mnist (a classifier), moe (a Fashion-MNIST "
                 "classifier through a mixture of experts), char-rnn (a "
                 "character-level language model on text), rbm or "
                 "autoencoder (energy models on Fashion-MNIST)")
    ->required()
    ->check(CLI::IsMember(
      {"fashion-mnist", "moe", "char-rnn", "rbm", "autoencoder"}));
  train_cmd->add_option("--data-dir", train.data_dir,
                        "Where the dataset's .gz files are (default: "
                        "/usr/share/datasets/fashion-mnist)");
  train_cmd->add_option("--model", train.model, "The model")
    ->capture_default_str()
    ->check(CLI::IsMember({"mlp", "cnn"}));
  train_cmd
    ->add_option("--hidden", train.hidden,
                 "The MLP's hidden layer sizes, e.g. 512,256")
    ->delimiter(',')
    ->capture_default_str()
    ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  train_cmd->add_option("--optimizer", train.optimizer, "The optimizer")
    ->capture_default_str()
    ->check(CLI::IsMember(
      {"sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam"}));
  train_cmd
    ->add_option("--lr,--learning-rate", train.learning_rate, "Learning rate")
    ->capture_default_str()
    ->check(finite_positive());
  train_cmd->add_option("--epochs", train.epochs, "Epochs in all")
    ->capture_default_str()
    ->check(int_range(1, 100'000));
  train_cmd->add_option("--batch", train.batch, "Examples per step")
    ->capture_default_str()
    ->check(int_range(1, 1 << 20));
  add_threads_option(train_cmd, &train.threads);
  train_cmd
    ->add_option("--device", train.device,
                 "Where the model runs: cpu, or gpu (gpu:0; a build with "
                 "CUDA and a GPU)")
    ->check(CLI::IsMember({"cpu", "gpu"}))
    ->capture_default_str();
  add_graph_passes_option(train_cmd, &train.passes);
  train_cmd
    ->add_option("--seed", train.seed,
                 "Seed of the initial weights and the data order")
    ->capture_default_str();
  train_cmd
    ->add_option("--checkpoint-dir", train.checkpoint_dir,
                 "Checkpoints go to <dir>/fashion-mnist-<model> "
                 "(char-rnn: <dir>/char-rnn)")
    ->capture_default_str();
  train_cmd->add_option("--keep", train.keep, "Checkpoints to keep")
    ->capture_default_str()
    ->check(int_range(1, 1'000'000));
  train_cmd->add_flag("--resume", train.resume,
                      "Continue from the newest checkpoint; one that does "
                      "not fit the model stops the job");
  train_cmd->add_flag(
    "--restore-what-fits", train.restore_what_fits,
    "With --resume: restore the variables the checkpoint has with the "
    "model's dtype and shape, initialise the others (as TensorFlow's "
    "init_from_checkpoint)");
  train_cmd->add_flag("--quiet", train.quiet, "Print only the final JSON line");
  auto* trace_opt = train_cmd->add_option(
    "--trace", train.trace,
    "Write a Chrome trace of the steps --trace-steps to this file (open it "
    "in ui.perfetto.dev or chrome://tracing); with --cluster, the chief "
    "writes it");
  train_cmd->add_option(
    "--logdir", train.logdir,
    "Write TensorBoard event files here: the graph, the loss and a "
    "histogram of every weight every --summary-every steps, test accuracy "
    "and samples/s every epoch (with --cluster, the chief writes them)");
  train_cmd
    ->add_option("--summary-every", train.summary_every,
                 "With --logdir: steps between summaries")
    ->capture_default_str()
    ->check(int_range(1, 1'000'000'000));
  train_cmd
    ->add_option("--trace-steps", train.trace_steps,
                 "With --trace: the training steps FIRST:END to trace, END "
                 "excluded, counted from 0 in the whole run (default 10:15)")
    ->delimiter(':')
    ->capture_default_str()
    ->check(CLI::NonNegativeNumber)
    ->needs(trace_opt);
  auto* cluster_opt
    = train_cmd
        ->add_option("--cluster", train.cluster.file,
                     "Train over the cluster of this file (jobs ps and "
                     "worker), between-graph replicated: variables on ps:0, "
                     "each worker its shard of each batch")
        ->check(CLI::ExistingFile);
  train_cmd
    ->add_option("--task", train.cluster.task,
                 "With --cluster: this process's task, ps:0 or worker:N "
                 "(worker:0 is the chief: it initialises and checkpoints)")
    ->needs(cluster_opt);
  cluster_opt->needs(train_cmd->get_option("--task"));
  train_cmd->add_flag(
    "--sync", train.sync,
    "With --cluster: synchronous training, the workers' mean "
    "gradient applied once per step (default: each worker applies "
    "its own, asynchronously)");
  train_cmd
    ->add_option("--strategy", train.strategy,
                 "With --cluster: ps (the variables on the ps tasks; "
                 "default) or allreduce (no ps: every worker holds the "
                 "variables and applies the mean gradient of all, summed "
                 "by a ring among the workers; synchronous)")
    ->check(CLI::IsMember({"ps", "allreduce"}));
  train_cmd
    ->add_option_function<std::string>(
      "--wire-dtype",
      [&train](const std::string& name) {
        train.wire_dtype = name == "float32"
                             ? actorflow::core::dtype::invalid
                             : *actorflow::core::parse_dtype(name);
      },
      "With --cluster: float32 activations and gradients travel between "
      "processes as this, cast back on arrival (half the bytes; default "
      "float32: as they are)")
    ->check(CLI::IsMember({"float32", "bfloat16", "float16"}));
  train_cmd->add_flag(
    "--schedule-recvs", train.schedule_recvs,
    "With --cluster: a value sent to another process leaves only "
    "when that process is about to need it, as late as possible "
    "(TensorFlow's recv scheduling; default: as soon as it is "
    "made)");
  train_cmd
    ->add_option("--metrics-port", train.metrics_port,
                 "With --cluster: serve Prometheus metrics at "
                 "http://HOST:PORT/metrics on the task's host (0: any free "
                 "port; docs/observability.md)")
    ->check(int_range(0, 65535));
  add_cluster_source_options(train_cmd, &train.cluster, cluster_opt,
                             train_cmd->get_option("--task"), true);
  bool dense_twin = false;
  auto* experts = train_cmd->add_option_group(
    "moe", "The mixture of experts (train moe: images -> experts of "
           "--hidden H1,H2 (default 256,256), k per image -> 10)");
  experts->add_option("--experts", train.experts, "Experts")
    ->capture_default_str()
    ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  experts->add_option("--k", train.k, "Experts per image")
    ->capture_default_str()
    ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  experts->add_flag("--dense", dense_twin,
                    "Train the dense twin instead: an MLP of the same "
                    "per-image compute (hidden k*H1,H2)");
  energy_options energy;
  auto* energies = train_cmd->add_option_group(
    "rbm, autoencoder",
    "The energy models (train rbm: --hidden 500, --epochs 3; train "
    "autoencoder: --hidden 1000,500,250,2, --epochs of pretraining per RBM "
    "2; both --batch 100)");
  energies->add_option("--cd-k", energy.cd_k, "Gibbs steps of CD-k")
    ->capture_default_str()
    ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  energies->add_flag("--persistent", energy.persistent,
                     "Persistent contrastive divergence");
  energies
    ->add_option("--finetune-epochs", energy.finetune_epochs,
                 "autoencoder: epochs of fine-tuning by backpropagation")
    ->capture_default_str()
    ->check(int_range(0, 100'000));
  energies->add_option("--out", energy.out,
                       "Where the .npy files for scripts/energy_to_png.py "
                       "go (default: rbm-out, autoencoder-out)");
  auto* text = train_cmd->add_option_group(
    "char-rnn", "The language model and its text (train char-rnn; its "
                "defaults: --optimizer adam --lr 0.002 --batch 32 --epochs "
                "1)");
  text->add_option("--data", train.char_rnn.data,
                   "A text file or folder: one sequence per fortune "
                   "(between % lines) or paragraph (default: Debian's "
                   "fortunes, /usr/share/games/fortunes)");
  text->add_option("--cell", train.char_rnn.model.cell, "The recurrent cell")
    ->capture_default_str()
    ->check(CLI::IsMember({"lstm", "gru"}));
  text->add_option("--layers", train.char_rnn.model.layers, "Recurrent layers")
    ->capture_default_str()
    ->check(int_range(1, 16));
  text->add_option("--units", train.char_rnn.model.units, "Units of each layer")
    ->capture_default_str()
    ->check(int_range(1, 1 << 16));
  text
    ->add_option("--embed", train.char_rnn.model.embed,
                 "Width of a character's embedding")
    ->capture_default_str()
    ->check(int_range(1, 1 << 16));
  text
    ->add_option("--max-len", train.char_rnn.max_len,
                 "Longer sequences are cut into windows of this many "
                 "characters")
    ->capture_default_str()
    ->check(int_range(1, 1 << 20));
  text
    ->add_option("--held-out-every", train.char_rnn.held_out_every,
                 "Every n-th sequence is held out for the perplexity")
    ->capture_default_str()
    ->check(int_range(2, 1'000'000));
  text
    ->add_option("--clip-norm", train.char_rnn.clip_norm,
                 "Clip the gradients to this global norm (0: do not)")
    ->capture_default_str()
    ->check(CLI::NonNegativeNumber);
  sample_options sample;
  auto* sample_cmd = app.add_subcommand(
    "sample", "Print text a char-RNN trained by `actorflow train char-rnn` "
              "generates after a prime, from its newest checkpoint");
  sample_cmd
    ->add_option("--checkpoint-dir", sample.checkpoint_dir,
                 "What train char-rnn's --checkpoint-dir was")
    ->capture_default_str();
  sample_cmd->add_option("--prime", sample.prime, "The text to start from")
    ->capture_default_str();
  sample_cmd->add_option("--length", sample.length, "Characters to generate")
    ->capture_default_str()
    ->check(int_range(0, 1'000'000));
  sample_cmd
    ->add_option("--temperature", sample.temperature,
                 "Below 1: likelier characters; above 1: more varied ones")
    ->capture_default_str()
    ->check(finite_positive());
  sample_cmd
    ->add_option("--seed", sample.seed,
                 "Seed of the sampling (0: another each run)")
    ->capture_default_str();
  add_threads_option(sample_cmd, &sample.threads);
  worker_options worker;
  auto* worker_cmd = app.add_subcommand(
    "worker", "Serve one task of a cluster file: publish this process's "
              "worker, print the address it listens on, run the partitions "
              "clients register until SIGTERM or SIGINT");
  auto* worker_config
    = worker_cmd
        ->add_option("--config", worker.cluster.file, "The cluster file (YAML)")
        ->check(CLI::ExistingFile);
  auto* worker_task
    = worker_cmd
        ->add_option("--task", worker.cluster.task, "This task, as job:index")
        ->needs(worker_config);
  worker_config->needs(worker_task);
  add_cluster_source_options(worker_cmd, &worker.cluster, worker_config,
                             worker_task, true);
  worker_cmd
    ->add_option("--port", worker.port,
                 "Listen on this port instead of the file's (0: any free "
                 "port)")
    ->check(int_range(0, 65535));
  add_threads_option(worker_cmd, &worker.threads);
  worker_cmd
    ->add_option("--bulk-min-bytes", worker.bulk_min_bytes,
                 "Tensors of at least this many bytes go to other workers "
                 "over the bulk path, smaller ones through CAF (default: "
                 "65536)")
    ->check(CLI::NonNegativeNumber);
  worker_cmd
    ->add_option("--metrics-port", worker.metrics_port,
                 "Serve Prometheus metrics at http://HOST:PORT/metrics on "
                 "the task's host (0: any free port; docs/observability.md)")
    ->check(int_range(0, 65535));
  cluster_up_options up;
  auto* cluster_cmd = app.add_subcommand(
    "cluster", "Run every task of a cluster file on this machine");
  cluster_cmd->require_subcommand(1);
  auto* up_cmd = cluster_cmd->add_subcommand(
    "up", "Start every task of the file, print a status line per task and "
          "their output, restart what dies (a job: all of it, from its last "
          "checkpoint), stop them all on Ctrl-C. After --, what each task "
          "runs: `-- train fashion-mnist --sync` runs `actorflow train "
          "fashion-mnist --sync --cluster F --task T`; none: `actorflow "
          "worker`");
  up_cmd->add_option("--config", up.config, "The cluster file (YAML)")
    ->required()
    ->check(CLI::ExistingFile);
  up_cmd
    ->add_option("--max-restarts", up.max_restarts,
                 "Restarts in a row after which it gives up")
    ->capture_default_str()
    ->check(int_range(0, 1000));
  up_cmd->add_flag("--quiet", up.quiet,
                   "Only the status lines, not the tasks' output");
  up_cmd->add_option("command", up.command,
                     "After --: the actorflow command each task runs");
  run_options run;
  auto* run_cmd = app.add_subcommand(
    "run", "Run one step of a saved graph (net::save_graph) in this process "
           "or on a cluster: feeds from .npy files, fetched tensors printed "
           "and written as .npy");
  saved_model_options saved;
  auto* graph_opt = run_cmd->add_option("--graph", run.graph, "The graph file")
                      ->check(CLI::ExistingFile);
  auto* saved_opt
    = run_cmd
        ->add_option("--saved-model", saved.dir,
                     "A TensorFlow 2 SavedModel directory: run its signature "
                     "(--signature), fed and fetched by input and output key, "
                     "from its saved variables")
        ->check(CLI::ExistingDirectory)
        ->excludes(graph_opt);
  graph_opt->excludes(saved_opt);
  run_cmd
    ->add_option("--signature", saved.signature,
                 "With --saved-model: the signature to run")
    ->capture_default_str();
  run_cmd
    ->add_option("--tags", saved.tags,
                 "With --saved-model: the meta graph's tags")
    ->delimiter(',')
    ->capture_default_str();
  run_cmd
    ->add_option("--runs", saved.runs,
                 "With --saved-model: run the signature this many times (a "
                 "training step's updates carry over); the last run's "
                 "outputs are printed")
    ->capture_default_str()
    ->check(int_range(1, 1'000'000'000));
  run_cmd
    ->add_option("--export", saved.export_dir,
                 "With --saved-model: then write the model, its "
                 "variables as the runs left them, as a SavedModel in "
                 "this directory (TensorFlow loads it)")
    ->needs(saved_opt);
  add_step_options(run_cmd, &run);
  run_cmd->add_option("--trace", run.trace,
                      "Write a Chrome trace of the step to this file (open it "
                      "in ui.perfetto.dev or chrome://tracing)");
  benchmark_options bench;
  auto* bench_cmd = app.add_subcommand(
    "benchmark",
    "Load, compile and run a graph as TensorFlow's benchmark_model does: "
    "the first run's time, the steady time per run, the peak resident "
    "memory; the last line is JSON");
  auto* bench_graph
    = bench_cmd
        ->add_option("--graph", bench.graph,
                     "The graph: a TensorFlow GraphDef (.pb, .pbtxt) or a "
                     "graph file of actorflow's")
        ->check(CLI::ExistingFile);
  auto* bench_saved
    = bench_cmd
        ->add_option("--saved-model", bench.saved_model,
                     "Or a TensorFlow 2 SavedModel directory: time its load "
                     "(tf.saved_model.load's work) and runs of --signature, "
                     "fed by input key")
        ->check(CLI::ExistingDirectory)
        ->excludes(bench_graph);
  bench_graph->excludes(bench_saved);
  bench_cmd
    ->add_option("--signature", bench.signature,
                 "With --saved-model: the signature to run")
    ->capture_default_str();
  bench_cmd->add_option("--feed", bench.feeds,
                        "name=file.npy, or name=D1xD2x...[:dtype] for "
                        "random values (float32 by default); repeatable");
  bench_cmd->add_option("--fetch", bench.fetches,
                        "A tensor to compute (node or node:output); "
                        "repeatable; with --graph, one or a --target");
  bench_cmd->add_option("--target", bench.targets,
                        "With --graph: a node to run for its effects each "
                        "run (a train op); repeatable");
  bench_cmd->add_option("--init", bench.inits,
                        "With --graph: a node to run once before the first "
                        "run (an initializer), in its time; repeatable");
  bench_cmd->add_option("--runs", bench.runs, "Timed runs")
    ->capture_default_str()
    ->check(int_range(1, 1'000'000));
  bench_cmd
    ->add_option("--warmup", bench.warmup, "Untimed runs after the first")
    ->capture_default_str()
    ->check(int_range(0, 1'000'000));
  bench_cmd->add_flag("--profile", bench.profile,
                      "Also print the time by op type of one traced run");
  add_threads_option(bench_cmd, &bench.threads);
  add_graph_passes_option(bench_cmd, &bench.passes);
  graph_show_options show;
  auto* graph_cmd = app.add_subcommand("graph", "Look at saved graphs")
                      ->require_subcommand(1);
  auto* show_cmd = graph_cmd->add_subcommand(
    "show", "Print a graph file as a node list or, with --dot, in Graphviz's "
            "dot language (dot -Tsvg): loop frames as clusters, devices as "
            "colours, control edges dashed");
  show_cmd->add_option("graph", show.run.graph, "The graph file")
    ->required()
    ->check(CLI::ExistingFile);
  show_cmd->add_flag("--dot", show.dot, "Print in dot");
  show_cmd->add_flag("--partitions", show.partitions,
                     "Run one step (--feed, --fetch, --target, --config as "
                     "in actorflow run) and print the partitions it placed, "
                     "one per device, Send/Recv pairs joined");
  show_cmd->add_option("-o,--output", show.output,
                       "Write to this file rather than standard output");
  add_step_options(show_cmd, &show.run);
  saved_model_options show_saved;
  auto* show_model_cmd = app.add_subcommand(
    "show", "Print a TensorFlow 2 SavedModel's signatures (inputs and outputs "
            "by key, dtype, shape) and the ops it uses that actorflow lacks, "
            "all of them");
  show_model_cmd
    ->add_option("--saved-model", show_saved.dir, "The SavedModel directory")
    ->required()
    ->check(CLI::ExistingDirectory);
  show_model_cmd->add_option("--tags", show_saved.tags, "The meta graph's tags")
    ->delimiter(',')
    ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (!log_level.empty() && !actorflow::core::set_log_level(log_level)) {
    std::fprintf(stderr, "unknown log level '%s'\n", log_level.c_str());
    return EXIT_FAILURE;
  }
  if (demo_cmd->parsed())
    return run_demo(demo);
  if (ops_cmd->parsed())
    return list_ops(list);
  if (train_cmd->parsed()) {
    if (!train.cluster.given())
      for (const auto* flag : {"--sync", "--strategy", "--wire-dtype",
                               "--schedule-recvs", "--metrics-port"})
        if (train_cmd->count(flag) > 0) {
          std::fprintf(stderr,
                       "actorflow train: %s needs --cluster F --task T, "
                       "--from-tf-config or --from-slurm\n",
                       flag);
          return EXIT_FAILURE;
        }
    // Flags of the other dataset's model are an error, not ignored.
    auto text_flags
      = {"--data",  "--cell",    "--layers",         "--units",
         "--embed", "--max-len", "--held-out-every", "--clip-norm"};
    auto image_flags
      = {"--data-dir", "--model", "--hidden", "--restore-what-fits"};
    auto moe_flags = {"--experts", "--k", "--dense"};
    auto energy_flags
      = {"--cd-k", "--persistent", "--finetune-epochs", "--out"};
    if (train.dataset == "rbm" || train.dataset == "autoencoder") {
      std::vector<const char*> others{text_flags};
      others.insert(others.end(), moe_flags);
      for (const auto* flag :
           {"--model", "--optimizer", "--device", "--cluster",
            "--from-tf-config", "--from-slurm", "--resume",
            "--restore-what-fits", "--checkpoint-dir", "--trace", "--logdir",
            "--graph-passes"})
        others.push_back(flag);
      if (train.dataset == "rbm")
        others.push_back("--finetune-epochs");
      for (const auto* flag : others)
        if (train_cmd->count(flag) > 0) {
          std::fprintf(stderr, "actorflow train: %s is not for %s\n", flag,
                       train.dataset.c_str());
          return EXIT_FAILURE;
        }
      bool rbm = train.dataset == "rbm";
      energy.data_dir = train.data_dir;
      energy.hidden = train_cmd->count("--hidden") > 0
                        ? train.hidden
                        : (rbm ? std::vector<int64_t>{500}
                               : std::vector<int64_t>{1000, 500, 250, 2});
      energy.epochs
        = train_cmd->count("--epochs") > 0 ? train.epochs : (rbm ? 3 : 2);
      energy.batch = train_cmd->count("--batch") > 0 ? train.batch : 100;
      energy.learning_rate = train.learning_rate;
      energy.seed = train.seed;
      energy.threads = train.threads;
      energy.quiet = train.quiet;
      if (energy.out.empty())
        energy.out = train.dataset + "-out";
      if (rbm && energy.hidden.size() != 1) {
        std::fprintf(stderr, "actorflow train: an rbm takes one --hidden "
                             "size\n");
        return EXIT_FAILURE;
      }
      return rbm ? run_train_rbm(energy) : run_train_autoencoder(energy);
    }
    std::vector<const char*> refused{text_flags};
    if (train.dataset == "char-rnn")
      refused.assign(image_flags);
    if (train.dataset == "moe")
      refused.push_back("--model");
    else
      refused.insert(refused.end(), moe_flags);
    refused.insert(refused.end(), energy_flags);
    for (const auto* flag : refused)
      if (train_cmd->count(flag) > 0) {
        std::fprintf(stderr, "actorflow train: %s is not for %s\n", flag,
                     train.dataset.c_str());
        return EXIT_FAILURE;
      }
    if (train.dataset == "moe") {
      // Fashion-MNIST through a mixture of experts, or its dense twin.
      train.dataset = "fashion-mnist";
      if (train_cmd->count("--hidden") == 0)
        train.hidden = {256, 256};
      train.model = "moe";
      if (dense_twin && train.hidden.size() == 2) {
        train.model = "mlp";
        train.hidden[0] *= train.k;
      }
    }
    if (train.dataset == "char-rnn") {
      // Its own defaults where the flags are silent.
      if (train_cmd->count("--optimizer") == 0)
        train.optimizer = "adam";
      if (train_cmd->count("--lr") == 0)
        train.learning_rate = 0.002;
      if (train_cmd->count("--batch") == 0)
        train.batch = 32;
      if (train_cmd->count("--epochs") == 0)
        train.epochs = 1;
    }
    return run_train(train);
  }
  if (sample_cmd->parsed())
    return run_sample(sample);
  if (up_cmd->parsed())
    return run_cluster_up(up);
  if (worker_cmd->parsed())
    return run_worker(worker);
  if (run_cmd->parsed()) {
    if (saved.dir.empty() && run.graph.empty()) {
      std::fprintf(stderr, "actorflow run: give --graph or --saved-model\n");
      return EXIT_FAILURE;
    }
    if (saved.dir.empty())
      return run_graph(run);
    saved.feeds = run.feeds;
    saved.fetches = run.fetches;
    saved.threads = run.threads;
    return run_saved_model(saved);
  }
  if (bench_cmd->parsed()) {
    if (bench.graph.empty() && bench.saved_model.empty()) {
      std::fprintf(stderr,
                   "actorflow benchmark: give --graph or --saved-model\n");
      return EXIT_FAILURE;
    }
    return run_benchmark(bench);
  }
  if (show_cmd->parsed())
    return show_graph(show);
  if (show_model_cmd->parsed())
    return show_saved_model(show_saved);
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
