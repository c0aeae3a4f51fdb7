#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actorflow/actors/session.hpp"

namespace actorflow::actors {

/// Keeps a queue filled, as TensorFlow's QueueRunner: one thread per
/// enqueue op runs it as a session step again and again, while training
/// steps dequeue.
///
/// A thread ends when its step fails because the queue was closed
/// (cancelled or out_of_range). Any other failure is kept in `status()`
/// and closes the queue, so that dequeues fail instead of waiting forever.
/// `stop` closes the queue cancelling waiting enqueues and joins.
class queue_runner {
public:
  /// `close_op` closes the queue; `cancel_op` closes it cancelling pending
  /// enqueues (QueueCloseV2 nodes built with and without the flag).
  queue_runner(session& sess, std::vector<std::string> enqueue_ops,
               std::string close_op, std::string cancel_op);

  /// Stops and joins.
  ~queue_runner();

  queue_runner(const queue_runner&) = delete;
  queue_runner& operator=(const queue_runner&) = delete;

  /// Starts one thread per enqueue op.
  void start();

  /// Closes the queue (cancelling pending enqueues) and joins the threads.
  void stop();

  /// The first failure of an enqueue step other than the queue closing.
  core::status status() const;

  /// Steps run so far, over all threads.
  int64_t steps() const noexcept {
    return steps_.load();
  }

private:
  void loop(const std::string& op);

  session& sess_;
  std::vector<std::string> enqueue_ops_;
  std::string close_op_;
  std::string cancel_op_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> steps_{0};
  mutable std::mutex mtx_;
  core::status status_;
};

} // namespace actorflow::actors
