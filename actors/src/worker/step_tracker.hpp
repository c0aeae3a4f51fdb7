#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "worker/frame_ref.hpp"

namespace actorflow::actors {

namespace detail {
class step_stats_collector;
} // namespace detail

/// Counts the work of one step that is not done yet on one worker, as
/// TensorFlow's executor counts outstanding ops: the worker's part of the
/// step is complete when the count drops to zero, whatever frame or
/// partition the last work ran in.
///
/// The count is of *tokens*. Every value message in flight inside the
/// worker carries one, and so does every asynchronous or offloaded kernel
/// still running and every Recv that has its activation but not yet its
/// value (a half-arrived Recv is outstanding work). A node actor handling
/// a message owns its token; each message it sends takes one of the tokens
/// it owns or a new one (`mint`), and what it owns after the message is
/// handled goes back (`release`). A hop with one output so passes its token
/// on without touching the count. A value from another worker carries no
/// token here: the Recv waiting for it holds one.
///
/// The tracker also knows the step's loop frame instances on the worker
/// (`frame_ref`s), entered by the worker's own Enters.
struct step_tracker {
  std::atomic<int64_t> tokens{0};
  /// The step, 0 while the tracker is free (no step has id 0).
  std::atomic<uint64_t> step{0};
  /// Whether the step was aborted here (it failed, or the master said so):
  /// node actors then drop its messages and give their tokens back, so
  /// that the step ends without running anything more.
  std::atomic<bool> aborted{false};
  /// Where node actors record the step's firings when it is traced;
  /// nullptr when not. Set before the step's first message, cleared after
  /// its last token came back.
  detail::step_stats_collector* stats = nullptr;

  /// Records frame instance `x` (the first Enter that creates it wins).
  void enter_frame(const frame_ref& x);

  /// Looks up frame instance `id`; false if this worker never entered it.
  bool find_frame(uint64_t id, frame_ref* out);

  /// Frame instance `id` is done and no value refers to it any more.
  void drop_frame(uint64_t id);

  /// Drops every frame instance (the step ended).
  void clear_frames();

  /// Adds `n` tokens. Call while owning one, so that the count cannot
  /// reach zero in between.
  void mint(int64_t n) {
    tokens.fetch_add(n, std::memory_order_relaxed);
  }

  /// Gives `n` tokens back; returns whether that completed the step.
  bool release(int64_t n) {
    return tokens.fetch_sub(n, std::memory_order_acq_rel) == n;
  }

private:
  std::mutex mtx_;
  std::unordered_map<uint64_t, frame_ref> frames_;
};

/// The step trackers of one worker, by step: the worker acquires one when
/// it starts its part of a step and releases it when the step is dropped;
/// node actors look the tracker of a message's step up here (and cache
/// it). Trackers are reused, never freed while the set lives, so a cached
/// pointer stays valid: compare its `step` before trusting it.
class step_trackers {
public:
  /// A tracker for `step` with no tokens.
  step_tracker* acquire(uint64_t step);

  /// The tracker of `step`, or nullptr if the worker runs no such step.
  step_tracker* find(uint64_t step);

  /// Returns the tracker of a step that was dropped.
  void release(step_tracker* tracker);

  /// Whether `step` ended here lately (one of the last `remembered`): a
  /// value from another worker for it comes too late and is dropped.
  bool ended(uint64_t step);

  /// How many ended steps are remembered.
  static constexpr size_t remembered = 4096;

private:
  std::mutex mtx_;
  std::vector<std::unique_ptr<step_tracker>> all_;
  std::vector<step_tracker*> free_;
  std::unordered_map<uint64_t, step_tracker*> active_;
  /// The last `remembered` ended steps, oldest first, and as a set.
  std::deque<uint64_t> ended_order_;
  std::unordered_set<uint64_t> ended_;
};

} // namespace actorflow::actors
