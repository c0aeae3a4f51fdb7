#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "actorflow/actors/step_stats.hpp"

namespace actorflow::actors {

struct partition_plan;

namespace detail {

/// Gathers the firings and transfers of one step on one worker while the
/// step is traced, like TensorFlow's `StepStatsCollector`: node actors on
/// any thread record into it, the worker takes the result when its part of
/// the step is done. Reached through `step_tracker::stats`, which is null
/// when the step is not traced.
///
/// A firing is recorded as a few numbers (its partition and node, tag,
/// times, bytes): names are looked up once, in `take`. The collector
/// keeps the step's partitions alive for that.
class step_stats_collector {
public:
  explicit step_stats_collector(
    std::vector<std::shared_ptr<partition_plan>> parts);

  /// Records a firing of node `node` of partition `part`.
  void record(const partition_plan* part, int node, uint64_t frame,
              int64_t iter, int64_t start_us, int64_t end_us, int64_t bytes);

  /// Counts a value a Send forwarded: to another process or not.
  void count_transfer(bool remote, int64_t bytes);

  /// What was recorded: one entry per partition (device), with its
  /// firings in the order they were recorded and its device's memory now,
  /// and the transfer counts.
  step_stats take();

private:
  struct firing {
    int node;
    uint64_t frame;
    int64_t iter;
    int64_t start_us;
    int64_t end_us;
    int64_t bytes;
  };

  std::vector<std::shared_ptr<partition_plan>> parts_;
  std::mutex mtx_;
  /// By partition, in the order of `parts_`.
  std::vector<std::vector<firing>> firings_;
  int64_t partition_messages_ = 0;
  int64_t partition_bytes_ = 0;
  int64_t process_messages_ = 0;
  int64_t process_bytes_ = 0;
};

} // namespace detail

} // namespace actorflow::actors
