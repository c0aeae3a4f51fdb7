#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime_messages.hpp"
#include "worker/step_tracker.hpp"

namespace actorflow::actors {

/// One instance of a loop frame on a partition, as the frame's group
/// actor keeps it: which iterations are in flight and how much work each
/// still has, the NextIteration values held back by `parallel_iterations`,
/// and whether the instance is finished. TensorFlow's executor keeps the
/// same per frame (§2.4 of the runtime notes): an iteration is done when
/// it has no outstanding work and the iteration before it is done;
/// iterations retire in order; a new iteration starts only while fewer
/// than `parallel_iterations` are in flight; the frame is done when its
/// Enters have all arrived and its last iteration retired.
///
/// Work is counted by the group actor: a value in its local queue, a
/// kernel running off the actor, a child frame instance not yet done.
class frame_instance {
public:
  /// A NextIteration value waiting for its iteration to start: the
  /// NextIteration (index in the partition), the tag it arrived with, and
  /// its value.
  struct held_value {
    int node;
    actors::tag tag;
    value_state state;
    ops::entry value;
  };

  /// `entries`: the values the frame's Enters send into the instance.
  frame_instance(int64_t entries, int64_t parallel_iterations);

  /// The enclosing frame instance (0 for the root), once learnt.
  uint64_t parent() const noexcept {
    return record_.parent;
  }

  /// The worker's record of this instance's frame (its parent, whether it
  /// was entered dead), once learnt; nullptr before.
  const frame_ref* record() const noexcept {
    return known_ ? &record_ : nullptr;
  }

  /// Learns the worker's record of frame `id` (this instance), unless it
  /// is known already: it is fixed once the frame's first Enter made it.
  /// An instance may be made by a value from another worker before the
  /// step's tracker or the frame's record exists here; it learns the record
  /// from a later message.
  void learn(step_tracker* tracker, uint64_t id) {
    if (!known_ && tracker != nullptr)
      known_ = tracker->find_frame(id, &record_);
  }

  /// The oldest iteration not retired and the newest started.
  int64_t oldest() const noexcept {
    return oldest_;
  }

  int64_t newest() const noexcept {
    return oldest_ + static_cast<int64_t>(in_flight_) - 1;
  }

  /// One value from the frame's Enters arrived.
  void entry_arrived() noexcept {
    --entries_left_;
  }

  /// Counts one piece of work of iteration `iter`; returns false (and
  /// counts nothing) for an iteration not in flight.
  bool add_work(int64_t iter) {
    if (iter < oldest_ || iter > newest())
      return false;
    ++work_of(iter);
    return true;
  }

  /// A piece of work counted by `add_work` is done.
  void work_done(int64_t iter) {
    if (iter >= oldest_ && iter <= newest())
      --work_of(iter);
  }

  /// Whether `retire` has anything to do.
  bool may_retire() const noexcept {
    return !held_.empty() || (in_flight_ > 0 && work_of(oldest_) == 0);
  }

  /// Iteration `iter` created child frame instance `child` (counted once).
  void add_child(uint64_t child, int64_t iter);

  /// Child frame instance `child` is done.
  void child_done(uint64_t child);

  /// Whether a NextIteration may send into iteration `iter` now: it is in
  /// flight, or it is the next one and fewer than `parallel_iterations`
  /// are (then it starts). Otherwise hold the value with `hold`.
  bool may_enter(int64_t iter);

  void hold(held_value x) {
    held_.push_back(std::move(x));
  }

  /// How many values `hold` keeps (each with a token of the step).
  int64_t held_values() const noexcept {
    return static_cast<int64_t>(held_.size());
  }

  /// Retires the iterations that are done, in order. Puts the held values
  /// that may go on now (their iteration has started) into `ready` (empty
  /// on the call; its buffer becomes the one that holds values next).
  void retire(std::vector<held_value>& ready);

  /// Whether every Enter value arrived and every iteration retired: no
  /// work of the instance is left and none can come.
  bool finished() const noexcept {
    return entries_left_ <= 0 && in_flight_ == 0 && held_.empty();
  }

  /// Returns true the first time only: the enclosing frame is told once.
  bool first_report() noexcept {
    return !std::exchange(reported_, true);
  }

private:
  int64_t entries_left_;
  int64_t parallel_;
  frame_ref record_;
  bool known_ = false;
  /// The outstanding work of iteration `iter`, in flight.
  int64_t& work_of(int64_t iter) {
    return work_[static_cast<size_t>(iter) & (work_.size() - 1)];
  }

  int64_t work_of(int64_t iter) const {
    return work_[static_cast<size_t>(iter) & (work_.size() - 1)];
  }

  /// Starts iteration newest() + 1 with no work.
  void start_iteration();

  int64_t oldest_ = 0;
  /// Outstanding work of iterations oldest_ .. newest(), a ring indexed by
  /// iteration (its size a power of two, at least `in_flight_`).
  std::vector<int64_t> work_;
  size_t in_flight_ = 0;
  std::vector<std::pair<uint64_t, int64_t>> children_; ///< (id, iteration)
  std::vector<held_value> held_;
  bool reported_ = false;
};

} // namespace actorflow::actors
