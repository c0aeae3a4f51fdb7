#include "step_stats_collector.hpp"

#include <chrono>

#include "worker/partition_plan.hpp"

namespace actorflow::actors {

int64_t now_micros() noexcept {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch())
    .count();
}

step_observer::~step_observer() {
  // nop
}

namespace detail {

step_stats_collector::step_stats_collector(
  std::vector<std::shared_ptr<partition_plan>> parts)
  : parts_(std::move(parts)), firings_(parts_.size()) {
  // nop
}

void step_stats_collector::record(const partition_plan* part, int node,
                                  uint64_t frame, int64_t iter,
                                  int64_t start_us, int64_t end_us,
                                  int64_t bytes) {
  std::lock_guard<std::mutex> guard{mtx_};
  // A worker hosts few partitions per step: a scan beats a map.
  for (size_t i = 0; i < parts_.size(); ++i)
    if (parts_[i].get() == part) {
      firings_[i].push_back(firing{node, frame, iter, start_us, end_us, bytes});
      return;
    }
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
  for (size_t i = 0; i < parts_.size(); ++i) {
    const auto& part = *parts_[i];
    auto& d = result.devices.emplace_back();
    d.device = part.device_name;
    auto memory = part.device->allocator(core::memory_type::host)->stats();
    d.bytes_in_use = memory.bytes_in_use;
    d.peak_bytes = memory.peak_bytes_in_use;
    d.nodes.reserve(firings_[i].size());
    for (const auto& f : firings_[i]) {
      auto n = static_cast<size_t>(f.node);
      const auto& def = part.nodes[n].def;
      auto& x = d.nodes.emplace_back();
      x.node = def.name;
      x.op = def.op;
      x.frame_name
        = part.groups[static_cast<size_t>(part.group_of[n])].frame_name;
      x.frame = f.frame;
      x.iter = f.iter;
      x.start_us = f.start_us;
      x.end_us = f.end_us;
      x.output_bytes = f.bytes;
      auto kind = part.nodes[n].kind;
      if (kind == node_kind::send || kind == node_kind::recv)
        x.tensor_name = std::get<std::string>(def.attrs.at("tensor_name"));
    }
    firings_[i].clear();
  }
  result.partition_messages = partition_messages_;
  result.partition_bytes = partition_bytes_;
  result.process_messages = process_messages_;
  result.process_bytes = process_bytes_;
  partition_messages_ = partition_bytes_ = 0;
  process_messages_ = process_bytes_ = 0;
  return result;
}

} // namespace detail

} // namespace actorflow::actors
