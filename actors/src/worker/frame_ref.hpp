#pragma once

#include <cstdint>

namespace actorflow::actors {

/// A loop frame instance as a worker knows it: its id and the way back
/// out, the frame and iteration that entered it. A plain value: a worker
/// keeps one per frame instance of a step (see `step_tracker`) and tags
/// carry only the id, so a tag means the same on every worker.
struct frame_ref {
  uint64_t id = 0;
  uint64_t parent = 0; ///< 0: the root frame.
  int64_t parent_iter = 0;
  /// Entered with a dead value (a loop in an untaken branch): its Exits
  /// are dead rather than dropped.
  bool dead = false;
};

} // namespace actorflow::actors
