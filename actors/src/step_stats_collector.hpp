#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/actors/step_stats.hpp"

namespace actorflow::actors::detail {

/// Gathers the firings and transfers of one step on one worker while the
/// step is traced, like TensorFlow's `StepStatsCollector`: node actors on
/// any thread record into it, the worker takes the result when its part of
/// the step is done. Reached through `step_tracker::stats`, which is null
/// when the step is not traced.
class step_stats_collector {
public:
  /// Records one firing on `device`.
  void record(const std::string& device, node_exec_stats&& x);

  /// Counts a value a Send forwarded: to another process or not.
  void count_transfer(bool remote, int64_t bytes);

  /// What was recorded: one entry per device, in the order of the devices'
  /// first firing, with the transfer counts. Leaves the collector empty.
  step_stats take();

private:
  std::mutex mtx_;
  std::vector<device_step_stats> devices_;
  int64_t partition_messages_ = 0;
  int64_t partition_bytes_ = 0;
  int64_t process_messages_ = 0;
  int64_t process_bytes_ = 0;
};

} // namespace actorflow::actors::detail
