#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime_messages.hpp"

namespace actorflow::actors {

/// Values between the nodes of one actor, first in first out: a ring
/// buffer that doubles when full, so that a long loop running inside one
/// actor reuses the same memory.
class local_queue {
public:
  /// A queued value, and whether its frame instance counts it as work.
  struct item {
    value_msg msg;
    bool counted;
  };

  bool empty() const {
    return size_ == 0;
  }

  void push(value_msg&& msg, bool counted) {
    if (size_ == items_.size())
      grow();
    auto at = (head_ + size_) & (items_.size() - 1);
    items_[at] = std::move(msg);
    counted_[at] = counted;
    ++size_;
  }

  item pop() {
    auto at = head_;
    head_ = (head_ + 1) & (items_.size() - 1);
    --size_;
    return item{std::move(items_[at]), counted_[at] != 0};
  }

private:
  void grow() {
    std::vector<value_msg> items(std::max<size_t>(64, items_.size() * 2));
    std::vector<uint8_t> counted(items.size());
    for (size_t k = 0; k < size_; ++k) {
      auto at = (head_ + k) & (items_.size() - 1);
      items[k] = std::move(items_[at]);
      counted[k] = counted_[at];
    }
    items_.swap(items);
    counted_.swap(counted);
    head_ = 0;
  }

  std::vector<value_msg> items_; ///< Capacity: a power of two.
  std::vector<uint8_t> counted_;
  size_t head_ = 0;
  size_t size_ = 0;
};

} // namespace actorflow::actors
