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
#include "actorflow/graph/optimizer.hpp"
#include "actorflow/graph/passes.hpp"
#include "actorflow/graph/validate.hpp"

namespace actorflow::graph {

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
  /// The dtype float32 values travel as between tasks (see `partition`);
  /// invalid: as they are.
  core::dtype wire_dtype = core::dtype::invalid;
  /// Whether values sent between tasks leave only when the receiver is
  /// about to need them (`partition_options::schedule_recvs`).
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
/// prunes (`rewrite_for_run`), runs the selected graph passes, validates
/// the result (once: later steps only add nodes whose types are known),
/// places it (`pin_devices`, `place`), cuts it into partitions with
/// Send/Recv pairs (`partition`) and inserts host/device copies
/// (`insert_memory_copies`). Runs in the graph layer alone: no actor, no
/// device is touched.
core::status compile_run(const graph& g, const graph_types& types,
                         const run_signature& sig, const compile_options& opts,
                         compiled_run* out);

} // namespace actorflow::graph
