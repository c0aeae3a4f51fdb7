#include "actorflow/actors/cancellation.hpp"

#include <algorithm>

#include <caf/send.hpp>

namespace actorflow::actors {

void cancellation::cancel() {
  std::vector<std::pair<session_actor, uint64_t>> runs;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    cancelled_ = true;
    runs.swap(runs_);
  }
  for (const auto& [hdl, id] : runs)
    caf::anon_send(hdl, cancel_atom::value, id);
}

bool cancellation::cancelled() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return cancelled_;
}

bool cancellation::add(const session_actor& hdl, uint64_t run_id) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (cancelled_)
    return false;
  runs_.emplace_back(hdl, run_id);
  return true;
}

void cancellation::remove(const session_actor& hdl, uint64_t run_id) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = std::find(runs_.begin(), runs_.end(), std::make_pair(hdl, run_id));
  if (i != runs_.end())
    runs_.erase(i);
}

} // namespace actorflow::actors
