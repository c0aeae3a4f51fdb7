#pragma once

/// The compile path of a run: from a session's graph and one run
/// signature to the partitions each device runs.

#include <map>
#include <string>
#include <vector>

#include "actorflow/core/dtype.hpp"
#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/graph_passes.hpp"
#include "actorflow/graph/placement.hpp"
#include "actorflow/graph/validate.hpp"

namespace actorflow::graph {

/// What one `run` asks for: tensors to feed and fetch (`node:port`) and
/// nodes to run for their effects.
struct run_signature {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

/// One device's partition of a run, with the dtypes of its nodes.
struct typed_partition {
  std::string device;
  graph g;
  graph_types types;
};

/// What compiling a run needs besides the graph and the signature.
struct compile_options {
  const ops::op_registry& ops;
  const ops::kernel_registry& kernels;
  const pass_pipeline& passes;
  pass_selection selection;
  /// The full names of every device that may run a node, in order of
  /// preference.
  std::vector<std::string> devices;
  /// Where a node that asks for no device type goes; empty: a CPU.
  std::string default_device;
  /// The devices stateful nodes keep in every run (`place_stateful`), or
  /// nullptr.
  const pinned_devices* pinned = nullptr;
  /// The dtype float32 values travel as between tasks: bfloat16 or
  /// float16 (cast before each Send and back after its Recv); invalid: as
  /// they are.
  core::dtype wire_dtype = core::dtype::invalid;
  /// Whether a value sent to another task in the root frame leaves only
  /// when the receiving device is about to need it, so that it does not
  /// occupy the receiver's memory early (TensorFlow's recv scheduling).
  bool schedule_recvs = false;
};

/// A fed tensor as the graph expects it: the node that produces it (a
/// Placeholder's shape is what the feed must fit) and its dtype.
struct compiled_feed {
  std::string node;
  std::string op;
  core::dtype type = core::dtype::invalid;
  core::shape shape = core::shape::unknown();
};

/// A run signature compiled: what each device runs and what the client
/// feeds and fetches.
struct compiled_run {
  /// One per device, by device name, each with its nodes' dtypes.
  std::vector<typed_partition> partitions;
  /// Per feed of the signature, in its order.
  std::vector<compiled_feed> feeds;
  /// The fetched tensors' names, in the signature's order.
  std::vector<std::string> fetches;
  /// The device of every node of every partition, by node name.
  std::map<std::string, std::string> placement;
  /// What the graph passes did, in order.
  std::vector<pass_rewrite> rewrites;
  /// How many nodes the run's graph has after pruning and the passes.
  size_t nodes = 0;
};

/// Compiles run signature `sig` of graph `g` (validated; `types` are its
/// types): replaces feeds and fetches by `_Feed` and `_Fetch` nodes and
/// prunes to what the fetches and targets need, runs the selected graph
/// passes, validates the result (once: later steps only add nodes whose
/// types are known), places it (the pinned devices first; explicit
/// requests are honoured, nodes joined by reference edges share a device,
/// the rest go to the default device), cuts it into one partition per
/// device with Send/Recv pairs, and inserts host/device copies where a
/// kernel's memory differs from its producer's. Runs in the graph layer
/// alone: no actor, no device is touched. The steps live in
/// graph/src/compile/, one file each.
core::status compile_run(const graph& g, const graph_types& types,
                         const run_signature& sig, const compile_options& opts,
                         compiled_run* out);

} // namespace actorflow::graph
