#include "worker/step_tracker.hpp"

namespace actorflow::actors {

void step_tracker::enter_frame(const frame_ref& x) {
  std::lock_guard<std::mutex> guard{mtx_};
  frames_.try_emplace(x.id, x);
}

bool step_tracker::find_frame(uint64_t id, frame_ref* out) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = frames_.find(id);
  if (i == frames_.end())
    return false;
  *out = i->second;
  return true;
}

void step_tracker::drop_frame(uint64_t id) {
  std::lock_guard<std::mutex> guard{mtx_};
  frames_.erase(id);
}

void step_tracker::clear_frames() {
  std::lock_guard<std::mutex> guard{mtx_};
  frames_.clear();
}

step_tracker* step_trackers::acquire(uint64_t step) {
  std::lock_guard<std::mutex> guard{mtx_};
  step_tracker* result;
  if (free_.empty()) {
    all_.push_back(std::make_unique<step_tracker>());
    result = all_.back().get();
  } else {
    result = free_.back();
    free_.pop_back();
  }
  result->tokens.store(0, std::memory_order_relaxed);
  result->aborted.store(false, std::memory_order_relaxed);
  result->stats = nullptr;
  result->clear_frames();
  result->step.store(step, std::memory_order_release);
  active_[step] = result;
  return result;
}

step_tracker* step_trackers::find(uint64_t step) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = active_.find(step);
  return i == active_.end() ? nullptr : i->second;
}

void step_trackers::release(step_tracker* tracker) {
  tracker->clear_frames();
  std::lock_guard<std::mutex> guard{mtx_};
  auto step = tracker->step.load(std::memory_order_relaxed);
  active_.erase(step);
  tracker->stats = nullptr;
  tracker->step.store(0, std::memory_order_release);
  free_.push_back(tracker);
  if (ended_.insert(step).second) {
    ended_order_.push_back(step);
    if (ended_order_.size() > remembered) {
      ended_.erase(ended_order_.front());
      ended_order_.pop_front();
    }
  }
}

bool step_trackers::ended(uint64_t step) {
  std::lock_guard<std::mutex> guard{mtx_};
  return ended_.count(step) > 0;
}

} // namespace actorflow::actors
