#pragma once

// The char-RNN's training graph.

#include <string>
#include <vector>

#include "actorflow/graph/io_ops.hpp"
#include "actorflow/graph/scope.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "models/char_rnn/char_rnn_model.hpp"

namespace actorflow::apps {

/// How a char_rnn_training trains.
struct char_rnn_training_options {
  graph::optimizer optimizer;
  /// The gradients' global norm is clipped to this (0: not clipped).
  double clip_norm = 5;
  /// Synchronous training over this many replicas (sync_replicas.hpp); 0:
  /// each step applies its own gradients.
  int sync_replicas = 0;
  /// Where the synchronising queues live (the parameter server).
  std::string sync_device;
  /// All-reduce replication: the replicas' devices (empty: none); each
  /// applies the mean of their gradients to its own variables.
  std::vector<std::string> all_reduce;
};

/// The graph that trains a char_rnn_model on fed batches (text_batch):
///
/// - `inputs`, `targets` (int32 [batch, steps]) and `lengths` (int32
///   [batch]) are placeholders;
/// - `loss` is the batch's mean cross entropy over its real characters
///   (masked past each sequence's length), `loss_sum` their sum (for the
///   perplexity of held-out text, summed over batches);
/// - `train` runs one step of the optimizer on the gradients clipped to a
///   global norm of `clip_norm` (none for 0), and advances `global_step`;
///   with `sync_replicas`, it adds them to the parameter server's
///   accumulators and the chief's `sync_apply` (replica k's `sync_wait[k]`)
///   runs after it;
/// - `saver` saves and restores every variable (the optimizer's slots and
///   the global step too, so a resumed run goes on where it was).
struct char_rnn_training {
  char_rnn_training(const graph::scope& s, const char_rnn_config& config,
                    const char_rnn_training_options& options);

  graph::scope scope;
  char_rnn_model model;
  std::string inputs, targets, lengths;
  std::string loss, loss_sum, train, global_step, init;
  std::string sync_apply;
  std::vector<std::string> sync_wait;
  graph::saver saver;
};

} // namespace actorflow::apps
