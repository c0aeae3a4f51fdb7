#pragma once

// The options of `actorflow train`, and what its jobs share: the engine
// they run in, resuming from checkpoints, the run in one process.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/graph_passes.hpp"
#include "cluster/cluster_source.hpp"

namespace actorflow::apps {

class training_job;
struct train_options;

/// Makes the training job of a model (training_job.hpp) from the options;
/// an error message, or empty.
using make_job_fn = std::function<std::string(const train_options&,
                                              std::unique_ptr<training_job>*)>;

/// Options of `actorflow train`.
struct train_options {
  std::string dataset = "fashion-mnist";
  std::string data_dir;
  std::string model = "mlp";
  std::vector<int64_t> hidden{512, 256};
  std::string optimizer = "sgd";
  double learning_rate = 0.1;
  int epochs = 3;
  int batch = 128;
  int threads = 0;
  /// Where the model runs: "cpu" or "gpu" (gpu:0; ops without a GPU
  /// kernel, the input queue's among them, stay on the CPU).
  std::string device = "cpu";
  int64_t seed = 1;
  std::string checkpoint_dir = "checkpoints";
  /// The folder in `checkpoint_dir` the checkpoints go to; empty: the
  /// dataset's and model's (`fashion-mnist-mlp`, `char-rnn`).
  std::string checkpoint_name;
  int keep = 3;
  bool restore_what_fits = false;
  bool resume = false;
  bool quiet = false;
  /// Between-graph replication over this cluster, as its task (`ps:0`,
  /// `worker:1`; see train_cluster.hpp); none given: one process.
  cluster_source cluster;
  /// With `cluster`: synchronous training (the replicas' mean gradient
  /// applied once per step) rather than asynchronous.
  bool sync = false;
  /// With `cluster`: how the replicas share their gradients: "ps" (the
  /// variables on the ps tasks) or "allreduce" (no ps: every worker holds
  /// the variables and applies the mean of all workers' gradients,
  /// all-reduced among them; synchronous).
  std::string strategy = "ps";
  /// With `cluster`: float32 values between processes travel as this
  /// (bfloat16, float16); invalid: as they are (`--wire-dtype`).
  core::dtype wire_dtype = core::dtype::invalid;
  /// With `cluster`: values between processes leave only when their
  /// receiver is about to need them (`--schedule-recvs`).
  bool schedule_recvs = false;
  /// With `cluster`: serves Prometheus metrics on this port of the task's
  /// host (0: any free port; -1: none).
  int metrics_port = -1;
  /// A Chrome trace file of the training steps [first, end) of
  /// `trace_steps`; empty: none.
  std::string trace;
  std::pair<int64_t, int64_t> trace_steps{10, 15};
  /// A TensorBoard log directory (loss, weight histograms every
  /// `summary_every` steps; accuracy and samples/s every epoch); empty:
  /// none.
  std::string logdir;
  int summary_every = 100;
  /// The graph passes every run signature gets (`--graph-passes`).
  graph::pass_selection passes;
  /// The job of the model the command names, set by the model's command
  /// (models/models.cpp lists them) with what only that model takes.
  make_job_fn make_job;
};

/// Trains the dataset's model (training_job.hpp) -- a classifier on
/// Fashion-MNIST through an input queue, or a char-RNN on text -- in
/// this process or, with `cluster`, as a task of a cluster, with a
/// progress line, the test accuracy or held-out perplexity and a
/// checkpoint after each epoch; prints one JSON line at the end. Returns
/// the exit code.
int run_train(const train_options& options);

// -- shared by the single-process and the cluster job -------------------------

/// Prints `actorflow train: <what>`; returns the exit code 1.
int train_fail(const std::string& what);

/// The engine's threads and default device as `o` asks; an error message,
/// or empty.
std::string engine_options_from(const train_options& o,
                                actors::engine_options* eo);

/// Says, unless `o.quiet`, that a job resumed at `step` (of
/// `steps_per_epoch`) has nothing left to train: its speeds are null.
void say_nothing_to_train(const train_options& o, int64_t step,
                          int64_t steps_per_epoch);

/// With `o.resume`, restores the latest checkpoint and sets `step`;
/// otherwise says when a fresh start replaces checkpoints.
core::status restore_for_resume(const train_options& o,
                                actors::checkpoint_manager& checkpoints,
                                int64_t* step);

/// `actorflow train --cluster F --task T` (train_task.cpp), either
/// dataset.
int run_train_task(const train_options& o);

} // namespace actorflow::apps
