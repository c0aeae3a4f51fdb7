#pragma once

// Internal: a TensorFlow GraphDef, with the functions its nodes call, into
// the engine's IR -- what GraphDef files and SavedModels share.

#include <map>
#include <string>
#include <vector>

#include "actorflow/core/node_def.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/interop/tensorflow/graph_def.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "graph.pb.h"
#include "saved_model.pb.h"
#include "tensorflow/function_library.hpp"

namespace actorflow::interop::tensorflow::detail {

/// Imports the nodes of a GraphDef that given roots reach, and the
/// functions of its library they call (inlined, their loops and branches
/// lowered: expand_functions).
class graph_def_importer {
public:
  /// `stripped`: the signatures of TensorFlow's ops, whose attr defaults
  /// fill in the attrs a SavedModel's nodes leave out (nullptr: none left
  /// out).
  graph_def_importer(const tfproto::GraphDef& def, const ops::op_registry& ops,
                     const tfproto::OpList* stripped = nullptr);

  /// The ops lacking among the nodes `roots` reach (every node when
  /// `roots` is empty) and the functions they call.
  std::vector<missing_op>
  missing_ops(const std::vector<std::string>& roots) const;

  /// The nodes `roots` reach (every node when empty) in the engine's IR,
  /// calls expanded; lacking ops are one `unimplemented` error naming
  /// them all.
  core::status import(const std::vector<std::string>& roots,
                      std::vector<core::node_def>* out) const;

private:
  /// One output argument of an op: where its tensors start, how many.
  struct output_arg {
    std::string name;
    int start;
    int count;
  };

  bool is_call(const std::string& op) const;
  void reach(const std::vector<std::string>& roots,
             std::vector<const tfproto::NodeDef*>* nodes,
             std::vector<const tfproto::FunctionDef*>* fns) const;
  core::status import_call(const tfproto::NodeDef& n,
                           core::node_def* out) const;
  core::status import_any(const tfproto::NodeDef& n, core::node_def* out) const;
  core::status output_layout(const core::node_def& n,
                             std::vector<output_arg>* out) const;
  core::status import_function(const tfproto::FunctionDef& f,
                               function_def* out) const;

  const tfproto::GraphDef& def_;
  const ops::op_registry& ops_;
  /// Op name -> TensorFlow's signature of it, for stripped defaults.
  std::map<std::string, const tfproto::OpDef*> tf_ops_;
  std::map<std::string, const tfproto::FunctionDef*> functions_;
};

} // namespace actorflow::interop::tensorflow::detail
