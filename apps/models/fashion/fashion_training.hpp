#pragma once

// Fashion-MNIST's training graph, around a classifier.

#include <string>
#include <vector>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/io_ops.hpp"
#include "actorflow/graph/scope.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "models/fashion/fashion_data.hpp"
#include "models/fashion/fashion_model.hpp"

namespace actorflow::apps {

/// How to train.
struct training_options {
  model_options model;
  graph::optimizer optimizer;
  int64_t batch = 128;
  /// Synchronous training over this many replicas (TensorFlow's
  /// SyncReplicasOptimizer); 0: each step applies its own gradients.
  int sync_replicas = 0;
  /// Where the synchronising queues live (the parameter server).
  std::string sync_device;
  /// All-reduce replication: the replicas' devices (empty: none); each
  /// applies the mean of their gradients to its own variables.
  std::vector<std::string> all_reduce;
};

/// The graph that trains a fashion_model on Fashion-MNIST held in memory:
///
/// - the data in variables, set by `init` (or `data_init` alone) from
///   `data_feeds`;
/// - an input queue of (image, label) elements; `fill` enqueues one epoch
///   in a random order per run (a queue_runner runs it), `close`/`cancel`
///   close the queue;
/// - `train` runs one step on a dequeued batch (SGD etc. through
///   graph::minimize) and advances the global step; `loss` is its batch's
///   mean cross entropy; with `sync_replicas`, `train` only adds the
///   step's gradients to accumulators on the parameter server, the chief
///   then runs `sync_apply` (waits for every replica, applies the mean
///   gradient, advances the global step, resets the accumulators, lets the
///   others go) and replica k > 0 runs `sync_wait[k]`;
/// - `correct` counts the right answers for images fed to `eval_images`
///   (uint8 [n, 784]) and labels to `eval_labels` (uint8 [n]);
/// - with a mixture of experts, its balancing loss joins the minimised
///   loss (`loss` stays the cross entropy), and `expert_load` reads the
///   images each expert got since `reset_load` ran;
/// - `saver` saves and restores every variable but the data;
/// - `summaries`, fetched beside `loss`, is a serialized TensorBoard
///   summary of the batch's loss and a histogram of every weight.
struct fashion_training {
  fashion_training(const graph::scope& s, int64_t train_examples,
                   const training_options& options);

  /// The feeds `init` needs: the training set.
  actors::feed_list data_feeds(const fashion_data& data) const;

  graph::scope scope;
  std::string init, data_init, fill, close, cancel, train, loss, global_step;
  std::string summaries;
  std::string eval_images, eval_labels, correct;
  std::string sync_apply;
  std::vector<std::string> sync_wait;
  std::string expert_load, reset_load;
  graph::saver saver;

private:
  std::string images_in_, labels_in_;
};

} // namespace actorflow::apps
