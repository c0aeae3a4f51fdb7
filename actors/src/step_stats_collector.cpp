#include "step_stats_collector.hpp"

#include <chrono>

namespace actorflow::actors {

int64_t now_micros() noexcept {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch())
    .count();
}

namespace detail {

void step_stats_collector::record(const std::string& device,
                                  node_exec_stats&& x) {
  std::lock_guard<std::mutex> guard{mtx_};
  // A step touches few devices: a scan beats a map.
  for (auto& d : devices_)
    if (d.device == device) {
      d.nodes.push_back(std::move(x));
      return;
    }
  devices_.emplace_back();
  devices_.back().device = device;
  devices_.back().nodes.push_back(std::move(x));
}

void step_stats_collector::count_transfer(bool remote, int64_t bytes) {
  std::lock_guard<std::mutex> guard{mtx_};
  ++partition_messages_;
  partition_bytes_ += bytes;
  if (remote) {
    ++process_messages_;
    process_bytes_ += bytes;
  }
}

step_stats step_stats_collector::take() {
  std::lock_guard<std::mutex> guard{mtx_};
  step_stats result;
  result.devices = std::move(devices_);
  result.partition_messages = partition_messages_;
  result.partition_bytes = partition_bytes_;
  result.process_messages = process_messages_;
  result.process_bytes = process_bytes_;
  devices_.clear();
  partition_messages_ = partition_bytes_ = 0;
  process_messages_ = process_bytes_ = 0;
  return result;
}

} // namespace detail

} // namespace actorflow::actors
