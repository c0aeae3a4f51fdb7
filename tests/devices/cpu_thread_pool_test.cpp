// The CPU device's intra-op pool (devices/src/cpu_thread_pool.hpp): every
// task runs, on a thread that knows its index; threads that went to sleep
// wake for new work, as many as the waiting tasks need; a pool stops at once
// while its threads poll.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "cpu_thread_pool.hpp"

using namespace actorflow::devices;
using namespace std::chrono_literals;

namespace {

/// Counts finished tasks; `wait_for` blocks until `n` are done.
class counter {
public:
  void done() {
    std::lock_guard<std::mutex> guard{mtx_};
    ++count_;
    cv_.notify_all();
  }

  void wait_for(int n) {
    std::unique_lock<std::mutex> guard{mtx_};
    cv_.wait(guard, [&] { return count_ >= n; });
  }

  int count() {
    std::lock_guard<std::mutex> guard{mtx_};
    return count_;
  }

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  int count_ = 0;
};

} // namespace

TEST(cpu_thread_pool, runs_every_task_scheduled_from_many_threads) {
  cpu_thread_pool pool{3, 300us};
  counter finished;
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p)
    producers.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        pool.Schedule([&] { finished.done(); });
    });
  for (auto& t : producers)
    t.join();
  finished.wait_for(4000);
  EXPECT_EQ(finished.count(), 4000);
}

TEST(cpu_thread_pool, a_task_runs_on_a_thread_that_knows_its_index) {
  cpu_thread_pool pool{2, 300us};
  EXPECT_EQ(pool.NumThreads(), 2);
  EXPECT_EQ(pool.CurrentThreadId(), -1);
  std::mutex mtx;
  std::set<int> ids;
  counter finished;
  for (int i = 0; i < 100; ++i)
    pool.Schedule([&] {
      {
        std::lock_guard<std::mutex> guard{mtx};
        ids.insert(pool.CurrentThreadId());
      }
      finished.done();
    });
  finished.wait_for(100);
  ASSERT_FALSE(ids.empty());
  EXPECT_GE(*ids.begin(), 0);
  EXPECT_LT(*ids.rbegin(), 2);
}

TEST(cpu_thread_pool, threads_that_sleep_at_once_wake_for_each_task) {
  // No polling: after each task the threads go to sleep on the condition
  // variable, and every next task must wake one.
  cpu_thread_pool pool{2, 0us};
  counter finished;
  for (int i = 1; i <= 200; ++i) {
    pool.Schedule([&] { finished.done(); });
    finished.wait_for(i);
  }
  EXPECT_EQ(finished.count(), 200);
}

TEST(cpu_thread_pool, two_tasks_that_wait_for_each_other_get_two_threads) {
  // Each task waits (at most 10 s) until both have started: a pool that
  // wakes a sleeping thread only for tasks no polling thread will take
  // must still give the second task a thread of its own, whether the
  // threads poll (a long spin) or sleep at once (none).
  for (auto spin : {std::chrono::microseconds{0},
                    std::chrono::microseconds{std::chrono::hours{1}}}) {
    cpu_thread_pool pool{2, spin};
    for (int round = 0; round < 50; ++round) {
      std::mutex mtx;
      std::condition_variable cv;
      int started = 0;
      int met = 0;
      counter finished;
      auto task = [&] {
        {
          std::unique_lock<std::mutex> guard{mtx};
          ++started;
          cv.notify_all();
          if (cv.wait_for(guard, 10s, [&] { return started == 2; }))
            ++met;
        }
        finished.done();
      };
      pool.Schedule(task);
      pool.Schedule(task);
      finished.wait_for(2);
      ASSERT_EQ(met, 2) << "round " << round << ", spin " << spin.count()
                        << " us: the tasks did not run at once";
    }
  }
}

TEST(cpu_thread_pool, a_pool_stops_at_once_while_its_threads_poll) {
  auto start = std::chrono::steady_clock::now();
  {
    // Threads that would poll for an hour after their task.
    cpu_thread_pool pool{2, std::chrono::hours{1}};
    counter finished;
    pool.Schedule([&] { finished.done(); });
    pool.Schedule([&] { finished.done(); });
    finished.wait_for(2);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
}

TEST(cpu_thread_pool, at_least_one_thread) {
  cpu_thread_pool pool{0, 0us};
  EXPECT_EQ(pool.NumThreads(), 1);
  counter finished;
  pool.Schedule([&] { finished.done(); });
  finished.wait_for(1);
  EXPECT_EQ(finished.count(), 1);
}
