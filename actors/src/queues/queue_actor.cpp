#include "queues/queue_actor.hpp"

#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "queues/queue_state.hpp"
#include "runtime_messages.hpp"

namespace actorflow::actors {

namespace {

struct queue_actor_state {
  std::unique_ptr<queue_state> q;
  static inline const char* name = "actorflow.queue";
};

queue_actor::behavior_type
queue_behavior(queue_actor::stateful_pointer<queue_actor_state> self,
               ops::queue_spec spec) {
  self->state.q = std::make_unique<queue_state>(std::move(spec));
  return {
    [=](queue_enqueue_msg& m) {
      self->state.q->enqueue(std::move(m.components), m.many, m.step,
                             std::move(m.done));
    },
    [=](queue_dequeue_msg& m) {
      self->state.q->dequeue(m.n, m.many, m.up_to, m.step, std::move(m.done));
    },
    [=](queue_close_msg& m) {
      self->state.q->close(m.cancel_pending_enqueues, std::move(m.done));
    },
    [=](queue_size_msg& m) { m.done(self->state.q->size()); },
    [=](queue_cancel_msg m) { self->state.q->cancel_step(m.step); },
  };
}

/// The ops::queue kernels see: each call is a message to the actor.
class actor_queue : public ops::queue {
public:
  actor_queue(ops::queue_spec spec, queue_actor hdl)
    : ops::queue(std::move(spec)), hdl_(std::move(hdl)) {
    // nop
  }

  ~actor_queue() override {
    // Its state fails whatever still waits.
    caf::anon_send_exit(hdl_, caf::exit_reason::user_shutdown);
  }

  void enqueue(std::vector<core::tensor> components, bool many, uint64_t step,
               done_fn done) override {
    caf::anon_send(hdl_, queue_enqueue_msg{std::move(components), many, step,
                                           std::move(done)});
  }

  void dequeue(int64_t n, bool many, bool up_to, uint64_t step,
               dequeue_fn done) override {
    caf::anon_send(hdl_,
                   queue_dequeue_msg{n, many, up_to, step, std::move(done)});
  }

  void cancel_step(uint64_t step) override {
    caf::anon_send(hdl_, queue_cancel_msg{step});
  }

  void close(bool cancel_pending_enqueues, done_fn done) override {
    caf::anon_send(hdl_,
                   queue_close_msg{cancel_pending_enqueues, std::move(done)});
  }

  void size(std::function<void(int64_t)> done) override {
    caf::anon_send(hdl_, queue_size_msg{std::move(done)});
  }

private:
  queue_actor hdl_;
};

} // namespace

ops::queue_factory make_queue_factory(caf::actor_system& sys) {
  return [&sys](ops::queue_spec spec, std::shared_ptr<ops::queue>* out) {
    auto hdl = sys.spawn(queue_behavior, spec);
    *out = std::make_shared<actor_queue>(std::move(spec), std::move(hdl));
    return core::status::ok();
  };
}

} // namespace actorflow::actors
