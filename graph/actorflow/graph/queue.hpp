#pragma once

#include <string>
#include <vector>

#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// A queue node (FIFOQueueV2 or RandomShuffleQueueV2) and the ops that use
/// it, as TensorFlow's tf.queue classes. Steps share the queue; a step's
/// enqueue into a full queue or dequeue from an empty one waits without
/// holding a thread.
///
/// ~~~
/// graph::queue::options o{{dtype::float32, dtype::int32}, {{784}, {}}, 1024};
/// auto q = graph::queue::fifo(s.sub("q"), o);
/// auto fill = q.enqueue_many(s, {images, labels});   // run by a queue_runner
/// auto batch = q.dequeue_many(s, 128);               // [128, 784], [128]
/// ~~~
class queue {
public:
  /// What the queue holds.
  struct options {
    options(std::vector<core::dtype> component_types,
            std::vector<core::shape> component_shapes = {},
            int64_t max_elements = -1)
      : types(std::move(component_types)), shapes(std::move(component_shapes)),
        capacity(max_elements) {
      // nop
    }

    std::vector<core::dtype> types;
    /// Empty, or one shape per component (dequeue outputs get them).
    std::vector<core::shape> shapes;
    int64_t capacity = -1; ///< -1: unbounded
    std::string shared_name;
    std::string container;
  };

  /// A FIFO queue.
  static queue fifo(const scope& s, options o);

  /// A queue handing elements out in random order, keeping at least
  /// `min_after_dequeue` until it is closed.
  static queue random_shuffle(const scope& s, options o,
                              int64_t min_after_dequeue, seeds seed = {});

  /// The queue node's output, which every queue op takes.
  const output& handle() const noexcept {
    return handle_;
  }

  /// Adds one element.
  operation enqueue(const scope& s,
                    const std::vector<output>& components) const;

  /// Adds the rows (dimension 0) of `components` as elements.
  operation enqueue_many(const scope& s,
                         const std::vector<output>& components) const;

  /// Removes one element.
  std::vector<output> dequeue(const scope& s) const;

  /// Removes `n` elements, stacked; out_of_range once closed with fewer.
  std::vector<output> dequeue_many(const scope& s, int64_t n) const;

  /// Like `dequeue_many`, but once closed returns the 1..n left.
  std::vector<output> dequeue_up_to(const scope& s, int64_t n) const;

  /// Closes it; with `cancel_pending_enqueues`, waiting enqueues fail.
  operation close(const scope& s, bool cancel_pending_enqueues = false) const;

  /// The number of elements (int32).
  output size(const scope& s) const;

private:
  std::vector<output> take(const scope& s, const char* op, int64_t n) const;
  operation put(const scope& s, const char* op,
                const std::vector<output>& components) const;

  output handle_;
  options options_{{}};
};

} // namespace actorflow::graph
