#include "actorflow/graph/queue.hpp"

#include "builder_util.hpp"

namespace actorflow::graph {

namespace {

core::attr_map queue_attrs(const queue::options& o) {
  return {{"component_types", o.types},
          {"shapes", o.shapes},
          {"capacity", o.capacity},
          {"container", o.container},
          {"shared_name", o.shared_name}};
}

} // namespace

queue queue::fifo(const scope& s, options o) {
  queue q;
  q.handle_ = detail::first(s.add_node("FIFOQueueV2", "", {}, queue_attrs(o)));
  q.options_ = std::move(o);
  return q;
}

queue queue::random_shuffle(const scope& s, options o,
                            int64_t min_after_dequeue, seeds seed) {
  auto attrs = queue_attrs(o);
  attrs.emplace("min_after_dequeue", min_after_dequeue);
  attrs.emplace("seed", seed.seed);
  attrs.emplace("seed2", seed.seed2);
  queue q;
  q.handle_ = detail::first(
    s.add_node("RandomShuffleQueueV2", "", {}, std::move(attrs)));
  q.options_ = std::move(o);
  return q;
}

operation queue::put(const scope& s, const char* op,
                     const std::vector<output>& components) const {
  std::vector<core::dtype> types;
  std::vector<output> inputs{handle_};
  for (const auto& c : components) {
    types.push_back(c.dtype());
    inputs.push_back(c);
  }
  return s.add_operation(op, op, inputs, {{"Tcomponents", types}});
}

operation queue::enqueue(const scope& s,
                         const std::vector<output>& components) const {
  return put(s, "QueueEnqueueV2", components);
}

operation queue::enqueue_many(const scope& s,
                              const std::vector<output>& components) const {
  return put(s, "QueueEnqueueManyV2", components);
}

std::vector<output> queue::take(const scope& s, const char* op,
                                int64_t n) const {
  std::vector<output> inputs{handle_};
  if (n >= 0)
    inputs.push_back(detail::int_constant(s, std::string{op} + "/n", {n}, true,
                                          core::dtype::int32));
  return s.add_node(
    op, op, inputs,
    {{"component_types", options_.types}, {"shapes", options_.shapes}});
}

std::vector<output> queue::dequeue(const scope& s) const {
  return take(s, "QueueDequeueV2", -1);
}

std::vector<output> queue::dequeue_many(const scope& s, int64_t n) const {
  return take(s, "QueueDequeueManyV2", n);
}

std::vector<output> queue::dequeue_up_to(const scope& s, int64_t n) const {
  return take(s, "QueueDequeueUpToV2", n);
}

operation queue::close(const scope& s, bool cancel_pending_enqueues) const {
  return s.add_operation(
    "QueueCloseV2", "QueueCloseV2", {handle_},
    {{"cancel_pending_enqueues", cancel_pending_enqueues}});
}

output queue::size(const scope& s) const {
  return detail::first(s.add_node("QueueSizeV2", "QueueSizeV2", {handle_}, {}));
}

} // namespace actorflow::graph
