#include "worker/frame_instance.hpp"

#include <algorithm>

namespace actorflow::actors {

frame_instance::frame_instance(int64_t entries, int64_t parallel_iterations)
  : entries_left_(entries),
    parallel_(std::max<int64_t>(parallel_iterations, 1)), work_(8, 0) {
  start_iteration(); // iteration 0 starts with the instance
}

void frame_instance::start_iteration() {
  if (in_flight_ == work_.size()) {
    // Twice the room, each iteration at its index in the larger ring.
    std::vector<int64_t> larger(work_.size() * 2, 0);
    for (auto iter = oldest_; iter <= newest(); ++iter)
      larger[static_cast<size_t>(iter) & (larger.size() - 1)] = work_of(iter);
    work_.swap(larger);
  }
  ++in_flight_;
  work_of(newest()) = 0;
}

void frame_instance::add_child(uint64_t child, int64_t iter) {
  auto known = std::any_of(children_.begin(), children_.end(),
                           [&](const auto& c) { return c.first == child; });
  if (!known && add_work(iter))
    children_.emplace_back(child, iter);
}

void frame_instance::child_done(uint64_t child) {
  auto i = std::find_if(children_.begin(), children_.end(),
                        [&](const auto& c) { return c.first == child; });
  if (i == children_.end())
    return;
  work_done(i->second);
  children_.erase(i);
}

bool frame_instance::may_enter(int64_t iter) {
  if (iter <= newest())
    return true;
  if (iter != newest() + 1 || !held_.empty()
      || static_cast<int64_t>(in_flight_) >= parallel_)
    return false;
  start_iteration();
  return true;
}

void frame_instance::retire(std::vector<held_value>& ready) {
  // Iteration 0 also waits for the Enters' values.
  while (in_flight_ > 0 && work_of(oldest_) == 0
         && (oldest_ > 0 || entries_left_ <= 0)) {
    --in_flight_;
    ++oldest_;
  }
  if (!held_.empty() && static_cast<int64_t>(in_flight_) < parallel_) {
    // Every held value waits for the same iteration, the one after the
    // newest.
    start_iteration();
    ready.swap(held_);
  }
}

} // namespace actorflow::actors
