#pragma once

// What `actorflow train` trains, in one process or as a replica: the
// interface each model's job implements.

#include <memory>
#include <string>
#include <vector>

#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/io_ops.hpp"
#include "actorflow/graph/scope.hpp"
#include "training/train.hpp"
#include "training/training_gauges.hpp"

namespace actorflow::apps {

/// The nodes of a training graph that the job around it runs, and where
/// its checkpoints go.
struct training_graph {
  /// Initialises every variable (the chief's, or the one process's), run
  /// with `feeds`.
  std::string init;
  /// Initialises the variables a replica keeps to itself (none: empty),
  /// run with `feeds`; they are named `local_prefix`...
  std::string local_init;
  std::string local_prefix;
  actors::feed_list feeds;
  std::string global_step;
  /// Synchronous replicas' part of a step after the training step: the
  /// chief's, and replica k's at k (sync_replicas.hpp).
  std::string sync_apply;
  std::vector<std::string> sync_wait;
  graph::saver saver;
  std::string checkpoint_dir;
};

/// What `actorflow train` trains -- a dataset and its model -- in one
/// process or as one replica of a between-graph replicated job.
class training_job {
public:
  virtual ~training_job() = default;

  /// Loads replica `index`'s shard of the data (of `replicas`; 0 of 1 in
  /// one process), as large for every replica: synchronous ones take as
  /// many steps.
  virtual core::status load(actors::engine& e, int index, int replicas) = 0;

  /// Adds the training graph to `s`: with `sync_replicas` > 0, for
  /// synchronous replicas whose queues live on `sync_device`; with
  /// `all_reduce` (the replicas' devices), for replicas that all-reduce
  /// their gradients.
  virtual training_graph build(const graph::scope& s, int sync_replicas,
                               const std::string& sync_device,
                               const std::vector<std::string>& all_reduce = {})
    = 0;

  /// Trains from `step` to `o.epochs` (with `o.batch` the replica's share
  /// of a batch where the job splits batches), running `after_step` after
  /// each step if not empty; a checkpoint after each epoch given
  /// `checkpoints`; sets `gauges` (if not null) after each step. Prints
  /// the JSON line; returns the exit code.
  virtual int train(actors::session& sess, const train_options& o, int64_t step,
                    actors::checkpoint_manager* checkpoints,
                    const std::string& after_step, training_gauges* gauges)
    = 0;

  /// Offers a model the devices of the cluster's `expert` tasks to spread
  /// its experts over, before `build`; returns whether it takes them
  /// (then the replica connects to those tasks). A model without experts
  /// does not.
  virtual bool place_experts(const std::vector<std::string>& devices) {
    return false;
  }
};

/// The job of the model `o` names (`o.make_job`, which its command set)
/// with the optimizer and model `o` asks for; an error message, or
/// empty.
std::string make_training_job(const train_options& o,
                              std::unique_ptr<training_job>* job);

} // namespace actorflow::apps
