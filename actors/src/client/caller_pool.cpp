#include "client/caller_pool.hpp"

namespace actorflow::actors::detail {

caller_pool::lease::~lease() {
  if (self_ == nullptr)
    return;
  std::lock_guard<std::mutex> guard{pool_->mtx_};
  pool_->idle_.push_back(std::move(self_));
}

caller_pool::lease caller_pool::borrow() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!idle_.empty()) {
      auto self = std::move(idle_.back());
      idle_.pop_back();
      return lease{*this, std::move(self)};
    }
  }
  return lease{*this, std::make_unique<caf::scoped_actor>(sys_, true)};
}

} // namespace actorflow::actors::detail
