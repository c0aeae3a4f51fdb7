#include "cpu_thread_pool.hpp"

#include <algorithm>

namespace actorflow::devices {

namespace {

/// The pool thread's index, -1 on other threads.
thread_local int current_id = -1;

} // namespace

cpu_thread_pool::cpu_thread_pool(int num_threads,
                                 std::chrono::microseconds spin)
  : spin_(spin) {
  auto n = std::max(num_threads, 1);
  threads_.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    threads_.emplace_back([this, i] { run(i); });
}

cpu_thread_pool::~cpu_thread_pool() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_)
    t.join();
}

void cpu_thread_pool::Schedule(std::function<void()> fn) {
  std::lock_guard<std::mutex> guard{mtx_};
  tasks_.push_back(std::move(fn));
  queued_.fetch_add(1, std::memory_order_release);
  // A thread that polls takes the task within a microsecond or two; waking
  // a sleeping one as well only disturbs the machine: a futex call for the
  // waker, and on a 2-vCPU VM a wakee that competes with the kernel that
  // split its work, finds nothing left and polls on. In the MLP step the
  // helper block of a split product started 12-23 us after the split on
  // average (in slow minutes 25 us at the median) and the two halves
  // ended 7-14 us apart; waking only for tasks no polling thread will
  // take, 3-5 us and 5-7 (docs/performance.md, P3). A thread leaves the count
  // before it takes `mtx_` to sleep and then checks the queue, so no task is
  // left waiting while every thread sleeps.
  if (sleeping_ > 0
      && static_cast<int>(tasks_.size())
           > polling_.load(std::memory_order_relaxed))
    wake_.notify_one();
}

int cpu_thread_pool::NumThreads() const {
  return static_cast<int>(threads_.size());
}

int cpu_thread_pool::CurrentThreadId() const {
  return current_id;
}

bool cpu_thread_pool::pop(std::function<void()>& fn) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (tasks_.empty())
    return false;
  fn = std::move(tasks_.front());
  tasks_.pop_front();
  queued_.fetch_sub(1, std::memory_order_relaxed);
  polling_.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void cpu_thread_pool::run(int id) {
  using clock = std::chrono::steady_clock;
  current_id = id;
  std::function<void()> fn;
  auto last_task = clock::now();
  polling_.fetch_add(1, std::memory_order_relaxed);
  while (!stopping_.load(std::memory_order_relaxed)) {
    if (queued_.load(std::memory_order_acquire) > 0 && pop(fn)) {
      fn();
      fn = nullptr;
      last_task = clock::now();
      polling_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (clock::now() - last_task < spin_) {
      // Yielding, not spinning: a thread that needs this core, of this
      // process or another on the machine, gets it at once. (Spinning on
      // `pause`, a ps and a worker process sharing two cores took 3.2-3.5
      // ms per MLP step instead of 2.4-2.6.)
      std::this_thread::yield();
      continue;
    }
    polling_.fetch_sub(1, std::memory_order_relaxed);
    std::unique_lock<std::mutex> guard{mtx_};
    ++sleeping_;
    wake_.wait(guard, [this] { return stopping_ || !tasks_.empty(); });
    --sleeping_;
    polling_.fetch_add(1, std::memory_order_relaxed);
    guard.unlock();
    last_task = clock::now(); // woken for work: poll again after it
  }
}

} // namespace actorflow::devices
