#include "actorflow/actors/queue_runner.hpp"

#include "actorflow/core/logging.hpp"

namespace actorflow::actors {

queue_runner::queue_runner(session& sess, std::vector<std::string> enqueue_ops,
                           std::string close_op, std::string cancel_op)
  : sess_(sess), enqueue_ops_(std::move(enqueue_ops)),
    close_op_(std::move(close_op)), cancel_op_(std::move(cancel_op)) {
  // nop
}

queue_runner::~queue_runner() {
  stop();
}

void queue_runner::start() {
  for (const auto& op : enqueue_ops_)
    threads_.emplace_back([this, op] { loop(op); });
}

void queue_runner::loop(const std::string& op) {
  std::vector<core::tensor> none;
  while (!stopping_.load()) {
    auto st = sess_.run({}, {}, {op}, &none);
    if (st.is_ok()) {
      ++steps_;
      continue;
    }
    if (st.code() != core::errc::cancelled
        && st.code() != core::errc::out_of_range) {
      {
        std::lock_guard<std::mutex> guard{mtx_};
        if (status_.is_ok())
          status_ = st;
      }
      // Consumers should fail rather than wait for what will not come.
      auto closed = sess_.run({}, {}, {close_op_}, &none);
      if (!closed.is_ok())
        core::log().warn("queue_runner: closing the queue failed: {}",
                         closed.to_string());
    }
    return;
  }
}

void queue_runner::stop() {
  if (threads_.empty())
    return;
  stopping_ = true;
  std::vector<core::tensor> none;
  auto st = sess_.run({}, {}, {cancel_op_}, &none);
  if (!st.is_ok())
    core::log().warn("queue_runner: closing the queue failed: {}",
                     st.to_string());
  for (auto& t : threads_)
    t.join();
  threads_.clear();
}

core::status queue_runner::status() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return status_;
}

} // namespace actorflow::actors
