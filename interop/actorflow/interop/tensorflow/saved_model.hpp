#pragma once

#include <map>
#include <string>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/interop/tensorflow/graph_def.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace actorflow::interop::tensorflow {

/// One input or output of a signature: its key, the graph tensor behind it
/// (`node:port`), dtype and shape.
struct signature_tensor {
  std::string key;
  std::string tensor;
  core::dtype type = core::dtype::invalid;
  core::shape shape = core::shape::unknown();
};

/// A named run of a SavedModel (TensorFlow's SignatureDef): which tensors
/// to feed and fetch, by key (in key order).
struct signature {
  std::string key;
  std::string method;
  std::vector<signature_tensor> inputs;
  std::vector<signature_tensor> outputs;
};

/// A TensorFlow 2 SavedModel read into the engine's IR: its graph (the
/// signatures', the restore function's and the save function's nodes,
/// calls inlined, functional loops and branches lowered), signatures, and
/// how to restore and save its variables.
struct saved_model {
  std::string dir;
  graph::graph graph;
  std::map<std::string, signature> signatures;
  /// The restore step: feed `restore_prefix` to `restore_filename` and run
  /// `restore_op` (the SavedModel's own restore function, which reads the
  /// variables' tensor bundle with RestoreV2). Empty: no variables.
  std::string restore_filename;
  std::string restore_op;
  std::string restore_prefix;
  /// Ops to run once after the restore (`__saved_model_init_op`), or empty.
  std::string init_op;
  /// The save step (the model's own save function: SaveV2 and
  /// MergeV2Checkpoints): feed a prefix to `restore_filename` and fetch
  /// `save_tensor`. Empty: no variables, or a save function using ops the
  /// engine lacks, which `save_refused` then names.
  std::string save_tensor;
  std::string save_refused;
};

/// Reads the SavedModel in directory `dir`: the meta graph whose tags are
/// `tags` (as a set; `{"serve"}` usually), its signatures, and the graph
/// they need. A missing or malformed `saved_model.pb` names the file; tags
/// no meta graph has name the tag sets there are; ops the engine lacks are
/// one `unimplemented` error naming them all.
core::status load_saved_model(const std::string& dir,
                              const std::vector<std::string>& tags,
                              const ops::op_registry& ops, saved_model* out);

/// What `actorflow show --saved-model` prints: the signatures of the
/// SavedModel in `dir` and the ops its graph uses that `ops` lacks (all
/// of them), without importing the graph.
core::status describe_saved_model(const std::string& dir,
                                  const std::vector<std::string>& tags,
                                  const ops::op_registry& ops,
                                  std::map<std::string, signature>* signatures,
                                  std::vector<missing_op>* missing);

} // namespace actorflow::interop::tensorflow
