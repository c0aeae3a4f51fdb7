#include "frame_instance.hpp"

#include <algorithm>

namespace actorflow::actors {

frame_instance::frame_instance(int64_t entries, int64_t parallel_iterations)
  : entries_left_(entries),
    parallel_(std::max<int64_t>(parallel_iterations, 1)), work_(1, 0) {
  // Iteration 0 starts with the instance.
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
      || static_cast<int64_t>(work_.size()) >= parallel_)
    return false;
  work_.push_back(0);
  return true;
}

std::vector<frame_instance::held_value> frame_instance::retire() {
  // Iteration 0 also waits for the Enters' values.
  while (!work_.empty() && work_.front() == 0
         && (oldest_ > 0 || entries_left_ <= 0)) {
    work_.pop_front();
    ++oldest_;
  }
  std::vector<held_value> result;
  if (!held_.empty() && static_cast<int64_t>(work_.size()) < parallel_) {
    // Every held value waits for the same iteration, the one after the
    // newest.
    work_.push_back(0);
    result.swap(held_);
  }
  return result;
}

} // namespace actorflow::actors
