#pragma once

#include <deque>
#include <memory>
#include <random>
#include <unordered_set>
#include <vector>

#include "actorflow/ops/queue.hpp"

namespace actorflow::actors {

/// The state of one queue actor: its elements and the enqueues and
/// dequeues waiting for room or elements, served in arrival order as
/// TensorFlow's QueueBase (a waiting request is a callback, not a thread).
///
/// Not thread-safe: its actor calls it one message at a time. Callbacks run
/// inside the call that completes them.
class queue_state {
public:
  explicit queue_state(ops::queue_spec spec);

  /// Fails every waiting request (cancelled): the queue is going away.
  ~queue_state();

  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;

  /// See ops::queue::enqueue; components were checked against the spec.
  void enqueue(std::vector<core::tensor> components, bool many, uint64_t step,
               ops::queue::done_fn done);

  /// See ops::queue::dequeue.
  void dequeue(int64_t n, bool many, bool up_to, uint64_t step,
               ops::queue::dequeue_fn done);

  /// See ops::queue::cancel_step. A request of the step that arrives later
  /// fails at once: the cancellation may overtake it.
  void cancel_step(uint64_t step);

  /// See ops::queue::close.
  void close(bool cancel_pending_enqueues, ops::queue::done_fn done);

  int64_t size() const noexcept {
    return static_cast<int64_t>(elements_.size());
  }

  bool closed() const noexcept {
    return closed_;
  }

private:
  /// One element: row `row` (along dimension 0) of the components of an
  /// enqueue_many, or with `row` -1 the components of an enqueue. The rows
  /// of an enqueue_many share its tensors: no row is copied or allocated
  /// on the way in, and a dequeue_many copies runs of consecutive rows in
  /// one go. (A tensor per row, the 60,000 rows of a Fashion-MNIST epoch
  /// came in as 120,000 allocations, and stacking and freeing 128 of them
  /// took 26 of the 44 us a dequeue_many took.)
  struct element {
    std::shared_ptr<const std::vector<core::tensor>> batch;
    int64_t row = -1;
  };

  /// The shape of component `i` of `e`.
  static core::shape component_shape(const element& e, size_t i);

  /// Copies component `i` of `elements`, one after the other, into `out`.
  static void copy_component(const std::vector<element>& elements, size_t i,
                             core::tensor& out);

  struct enqueue_request {
    std::vector<element> pending; ///< what is not in the queue yet
    size_t next = 0;
    uint64_t step;
    ops::queue::done_fn done;
  };

  struct dequeue_request {
    int64_t n;
    bool many;
    bool up_to;
    std::vector<element> taken;
    uint64_t step;
    ops::queue::dequeue_fn done;
  };

  /// The error of a request whose step was cancelled.
  core::status step_failed(const char* what) const;

  /// Serves waiting requests until none can progress.
  void flush();

  /// Moves elements into the queue; true when the request is complete.
  bool serve(enqueue_request& r);

  /// Takes elements for `r`; true when it is complete (answered).
  bool serve(dequeue_request& r);

  /// Answers `r` with its elements (stacked when `many`).
  void deliver(dequeue_request& r);

  bool has_room() const noexcept;

  ops::queue_spec spec_;
  std::deque<element> elements_;
  std::deque<enqueue_request> enqueues_;
  std::deque<dequeue_request> dequeues_;
  bool closed_ = false;
  /// The steps cancelled lately, oldest first (at most
  /// `max_cancelled_steps`).
  static constexpr size_t max_cancelled_steps = 4096;
  std::deque<uint64_t> cancelled_order_;
  std::unordered_set<uint64_t> cancelled_;
  std::mt19937_64 random_;
};

} // namespace actorflow::actors
