#pragma once

// How a session runs its steps: what a client chooses per session, apart
// from the engine it runs in.

#include <memory>

#include "actorflow/actors/step_stats.hpp"
#include "actorflow/core/dtype.hpp"
#include "actorflow/graph/graph_passes.hpp"

namespace actorflow::actors {

/// How a session runs its steps, like TensorFlow's ConfigProto.
struct session_options {
  /// Logs the device of every node when a run signature is compiled, at
  /// level info (`ACTORFLOW_LOG_LEVEL=info`), as TensorFlow's
  /// `log_device_placement` does; `run_metadata::placement` has the same.
  bool log_device_placement = false;
  /// Sees every step of the session, traced (see `step_observer`);
  /// nullptr: none.
  std::shared_ptr<step_observer> observer;
  /// The graph passes run over each run signature's graph before
  /// placement (TensorFlow's GraphOptions); nullptr: the standard
  /// pipeline. Append passes of your own to
  /// `graph::pass_pipeline::standard()`.
  std::shared_ptr<const graph::pass_pipeline> passes;
  /// Which of them run, unless a run says otherwise: all.
  graph::pass_selection pass_selection;
  /// Float32 values sent from one task (process) to another travel as
  /// this dtype, bfloat16 or float16, and are cast back on arrival: half
  /// the bytes, about 3 significant digits for bfloat16. Invalid (the
  /// default): as they are. Values within a process never change.
  core::dtype wire_dtype = core::dtype::invalid;
  /// Recvs as late as possible (TensorFlow's `enable_recv_scheduling`):
  /// a value sent from one task to another leaves only when the receiving
  /// device reaches a node shortly before the value's first consumer
  /// there, so it does not occupy the receiver's memory early; it waits
  /// in the sender's instead. Loops and values with nothing to wait for
  /// are sent as they are made. Off by default.
  bool schedule_recvs = false;
};

} // namespace actorflow::actors
