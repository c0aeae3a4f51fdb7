#include "parallel_split.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "kernels.hpp"

namespace actorflow::ops::cpu {

parallel_split::parallel_split(kernel_context* ctx, bool worth_it) noexcept
  : ctx_(ctx) {
  if (ctx == nullptr || !worth_it)
    return;
  auto* dev = static_cast<devices::cpu_device*>(&ctx->device());
  if (dev->num_threads() > 1)
    device_ = dev;
}

int parallel_split::threads() const noexcept {
  return device_ != nullptr ? device_->num_threads() : 1;
}

void parallel_split::run(int parts,
                         const std::function<void(int)>& block) const {
  if (parts <= 1 || device_ == nullptr) {
    for (int p = 0; p < parts; ++p)
      block(p);
    return;
  }
  // The blocks go to whoever is free first. A pool task that finds none
  // left touches only the shared counters, never `block`, which may be
  // gone by then.
  struct shared {
    std::atomic<int> next{0};
    std::atomic<int> finished{0};
    std::mutex mtx;
    std::condition_variable all_done;
  };
  auto state = std::make_shared<shared>();
  auto work = [state, parts](const std::function<void(int)>* f) {
    for (int p = state->next++; p < parts; p = state->next++) {
      (*f)(p);
      if (++state->finished == parts) {
        std::lock_guard<std::mutex> guard{state->mtx};
        state->all_done.notify_all();
      }
    }
  };
  const auto& pool = eigen_device(*ctx_);
  auto helpers = std::min(parts, device_->num_threads()) - 1;
  for (int h = 0; h < helpers; ++h)
    pool.enqueueNoNotification([work, f = &block] { work(f); });
  work(&block);
  // Every block is taken by now; the helpers still at one end within about
  // a block's time. Polling for them a while, as long as the pool's threads
  // poll for work, costs less than sleeping: a sleeping thread wakes tens
  // of microseconds late on a VM.
  auto until = std::chrono::steady_clock::now() + device_->pool_spin();
  while (state->finished.load(std::memory_order_acquire) != parts
         && std::chrono::steady_clock::now() < until)
    std::this_thread::yield();
  std::unique_lock<std::mutex> guard{state->mtx};
  state->all_done.wait(guard, [&] { return state->finished == parts; });
}

void parallel_split::for_range(
  int64_t n, const std::function<void(int64_t, int64_t)>& range) const {
  auto lines = (n + 15) / 16;
  auto parts = static_cast<int>(std::min<int64_t>(threads(), lines));
  if (parts <= 1) {
    range(0, n);
    return;
  }
  run(parts, [&](int part) {
    auto begin = std::min(n, lines * part / parts * 16);
    auto end = std::min(n, lines * (part + 1) / parts * 16);
    range(begin, end);
  });
}

} // namespace actorflow::ops::cpu
