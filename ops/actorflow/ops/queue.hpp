#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/core/shape.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::ops {

/// What a queue holds and how it hands its elements out.
struct queue_spec {
  /// The name errors use (the creating node's shared name).
  std::string name;
  /// The dtype of each component of an element.
  std::vector<core::dtype> types;
  /// Empty, or the (possibly partial) shape of each component.
  std::vector<core::shape> shapes;
  /// The most elements it holds; -1: unbounded.
  int64_t capacity = -1;
  /// RandomShuffleQueue: elements leave in random order, and a dequeue
  /// waits while it would leave fewer than `min_after_dequeue` (until the
  /// queue is closed).
  bool shuffle = false;
  int64_t min_after_dequeue = 0;
  uint64_t seed = 0;
};

/// A queue of elements (tuples of tensors) that steps share, as
/// TensorFlow's QueueInterface.
///
/// Every operation completes through its callback, possibly on another
/// thread and later: an enqueue into a full queue or a dequeue from an
/// empty one waits as a pending request and holds no thread. The runtime
/// implements it (a queue actor); kernels only see this interface.
class queue {
public:
  using done_fn = std::function<void(core::status)>;
  using dequeue_fn
    = std::function<void(core::status, std::vector<core::tensor>)>;

  virtual ~queue();

  const queue_spec& spec() const noexcept {
    return spec_;
  }

  /// Adds one element, or with `many` the rows of `components` (along
  /// dimension 0) as elements in order, for step `step`; `done` when all
  /// are in, or fails (cancelled) if the queue is closed or the step
  /// cancelled first.
  virtual void enqueue(std::vector<core::tensor> components, bool many,
                       uint64_t step, done_fn done)
    = 0;

  /// Removes one element (`many` false), or `n` elements stacked along a
  /// new dimension 0. Once the queue is closed and can't deliver them,
  /// fails out_of_range; with `up_to`, returns the 1..n-1 left instead.
  /// A dequeue of step `step` that `cancel_step` cancels gives the
  /// elements it had taken back to the front of the queue.
  virtual void dequeue(int64_t n, bool many, bool up_to, uint64_t step,
                       dequeue_fn done)
    = 0;

  /// Fails the waiting enqueues and dequeues of step `step` (cancelled), as
  /// TensorFlow cancels the queue ops of an aborted step; nothing they had
  /// taken is lost.
  virtual void cancel_step(uint64_t step) = 0;

  /// Closes the queue: later enqueues fail, dequeues drain what is left.
  /// With `cancel_pending_enqueues`, waiting enqueues fail too.
  virtual void close(bool cancel_pending_enqueues, done_fn done) = 0;

  /// Reports the number of elements.
  virtual void size(std::function<void(int64_t)> done) = 0;

  /// Checks the components of an enqueue against the spec: their number,
  /// dtypes and shapes (per element: without dimension 0 for `many`, which
  /// all components must share).
  core::status check(const std::vector<core::tensor>& components,
                     bool many) const;

protected:
  explicit queue(queue_spec spec);

  queue_spec spec_;
};

/// Makes the queue of a FIFOQueue or RandomShuffleQueue node; the runtime
/// installs one in its resource_manager.
using queue_factory
  = std::function<core::status(queue_spec, std::shared_ptr<queue>*)>;

} // namespace actorflow::ops
