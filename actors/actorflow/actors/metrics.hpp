#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace actorflow::actors {

struct runtime_context;

/// What one process of a cluster counts for an operator to scrape: its
/// steps, its traffic with each peer, the state of its links to other
/// workers (CAF's and the bulk path's), and --
/// read when rendered -- its devices' memory and its queues' depths.
/// Rendered in Prometheus' text format (docs/observability.md lists
/// every metric). Counting is a few relaxed atomic adds; the engine owns
/// one in its runtime_context.
class metrics {
public:
  /// What this process sent to one peer task, by the path it took.
  struct peer_counters {
    std::atomic<uint64_t> caf_values{0};
    std::atomic<uint64_t> caf_bytes{0};
    std::atomic<uint64_t> bulk_values{0};
    std::atomic<uint64_t> bulk_bytes{0};
  };

  /// Upper bounds of the step duration histogram's buckets, in seconds.
  static constexpr std::array<double, 12> step_buckets{
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};

  /// Counts this worker's part of a step, which took `took`.
  void step_done(std::chrono::nanoseconds took, bool ok) noexcept;

  /// Sets the number of partition sets registered with the worker.
  void set_partition_sets(int64_t n) noexcept {
    partition_sets_.store(n, std::memory_order_relaxed);
  }

  /// The counters of peer task `task`, made on first use; the reference
  /// stays valid as long as this object.
  peer_counters& peer(const std::string& task);

  /// Counts a value that arrived by the bulk path.
  void bulk_received(uint64_t bytes) noexcept {
    bulk_received_values_.fetch_add(1, std::memory_order_relaxed);
    bulk_received_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }

  /// Records whether the bulk link to `address` is up.
  void set_bulk_link(const std::string& address, bool up);

  /// Records whether the worker of task `task`, in another process, is
  /// reachable by this process's sessions (false once it is gone, until
  /// a session connects to it again).
  void set_worker_up(const std::string& task, bool up);

  /// The counters, with `rt`'s devices' allocators and queues, in
  /// Prometheus' text exposition format (version 0.0.4).
  std::string render(const runtime_context& rt) const;

private:
  std::atomic<uint64_t> steps_ok_{0};
  std::atomic<uint64_t> steps_failed_{0};
  /// Steps per bucket (not cumulative), the last for +Inf.
  std::array<std::atomic<uint64_t>, step_buckets.size() + 1> buckets_{};
  std::atomic<uint64_t> step_ns_{0};
  std::atomic<int64_t> partition_sets_{0};
  std::atomic<uint64_t> bulk_received_values_{0};
  std::atomic<uint64_t> bulk_received_bytes_{0};
  mutable std::mutex mtx_; ///< Guards the maps.
  std::map<std::string, std::unique_ptr<peer_counters>> peers_;
  std::map<std::string, bool> bulk_links_;
  std::map<std::string, bool> workers_up_;
};

} // namespace actorflow::actors
