#pragma once

// Internal: what the oneDNN kernels share.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/ops/kernel_context.hpp"

namespace actorflow::ops::cpu::onednn {

/// Holds a tensor of `bytes` from the device's host allocator, as scratch.
core::status scratch(kernel_context& ctx, size_t bytes, core::tensor* out);

/// Holds oneDNN to one OpenMP thread on the calling thread: the kernels cut
/// their work over the device's pool themselves, and no OpenMP team spins
/// beside the actors.
void one_omp_thread();

/// Runs `f`, which returns a status, turning oneDNN's exceptions into
/// statuses: they never leave a kernel.
template <class F>
core::status guarded(const char* what, F&& f) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    return core::internal_error("oneDNN (", what, "): ", e.what());
  } catch (const std::bad_alloc&) {
    return core::resource_exhausted_error("oneDNN (", what, "): out of memory");
  }
}

/// A kernel's oneDNN primitives (with what runs them), by shape: making
/// one costs 50-100 us, running a small one a few.
template <class Plan>
class plan_cache {
public:
  /// The plan for `key`, made by `make(engine)` on first use. May throw
  /// what oneDNN throws (call it inside `guarded`).
  template <class Make>
  std::shared_ptr<const Plan> get(std::vector<int64_t> key, Make&& make) {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!engine_) // made here, not in a constructor, as it may throw
      engine_ = dnnl::engine{dnnl::engine::kind::cpu, 0};
    auto i = plans_.find(key);
    if (i != plans_.end())
      return i->second;
    if (plans_.size() >= capacity) // shapes that keep changing: the newest
      plans_.clear();
    std::shared_ptr<const Plan> made = make(engine_);
    plans_.emplace(std::move(key), made);
    return made;
  }

  /// The engine the plans run on; set by the first `get`.
  const dnnl::engine& engine() const noexcept {
    return engine_;
  }

private:
  static constexpr size_t capacity = 16;

  dnnl::engine engine_;
  std::mutex mtx_;
  std::map<std::vector<int64_t>, std::shared_ptr<const Plan>> plans_;
};

} // namespace actorflow::ops::cpu::onednn
