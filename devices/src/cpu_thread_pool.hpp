#pragma once

// Internal: the intra-op threads of a CPU device.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <unsupported/Eigen/CXX11/ThreadPool>

namespace actorflow::devices {

/// A CPU device's intra-op threads, as Eigen's `ThreadPoolInterface`: each
/// thread keeps polling for work for `spin` after its last task, yielding
/// its core to any thread that needs it, before it sleeps on a condition
/// variable. A new task wakes a sleeping thread only if more tasks wait
/// than threads poll.
///
/// A kernel split over the pool hands its blocks to threads that finished
/// the previous kernel's blocks microseconds before; a thread that went to
/// sleep in between wakes tens of microseconds late (~24 us on the 2-vCPU
/// VMs here, where the hypervisor wakes a halted vCPU), and a training step
/// of the MLP splits seven products. Eigen's own pool polls 5,000 / threads
/// times and cannot be told to poll longer: spinning so, it took the step
/// from 1.19-1.25 to 1.17-1.19 ms, this pool to 0.86 (docs/performance.md,
/// P3). Polling costs a core only while a thread has just worked and no
/// other thread wants it: an idle engine sleeps.
class cpu_thread_pool final : public Eigen::ThreadPoolInterface {
public:
  /// Starts `num_threads` threads (at least one).
  cpu_thread_pool(int num_threads, std::chrono::microseconds spin);

  /// Stops and joins the threads; tasks not started are dropped.
  ~cpu_thread_pool() override;

  cpu_thread_pool(const cpu_thread_pool&) = delete;
  cpu_thread_pool& operator=(const cpu_thread_pool&) = delete;

  void Schedule(std::function<void()> fn) override;

  int NumThreads() const override;

  int CurrentThreadId() const override;

private:
  /// Takes the oldest task, if any.
  bool pop(std::function<void()>& fn);

  /// A thread's life: run tasks, poll, sleep.
  void run(int id);

  std::chrono::microseconds spin_;
  std::mutex mtx_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_; ///< Guarded by `mtx_`.
  std::atomic<int> queued_{0}; ///< tasks_.size(), read while polling.
  std::atomic<bool> stopping_{false};
  int sleeping_ = 0; ///< Guarded by `mtx_`.
  /// Threads polling for work: neither running a task nor asleep.
  std::atomic<int> polling_{0};
  std::vector<std::thread> threads_;
};

} // namespace actorflow::devices
