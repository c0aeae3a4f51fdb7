// Running a node's kernel: inline on its node's actor, or off it as a job
// of CAF's scheduler (an expensive kernel) or asynchronously (a kernel that
// says so); checking its outputs when it is done.

#include "node/node_state.hpp"

#include <exception>

#include <caf/execution_unit.hpp>
#include <caf/ref_counted.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>
#include <caf/send.hpp>

namespace actorflow::actors::detail {

namespace {

/// Prepares the inputs: a reference feeding an input that expects a value
/// is read now (and fails if the variable is uninitialised).
core::status prepare_inputs(const node_item& item,
                            std::vector<ops::entry>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto& e = inputs[i];
    if (e.ref && !item.in_types[i].is_ref) {
      core::tensor value;
      ACTORFLOW_RETURN_IF_ERROR(e.ref->read(&value));
      e = ops::entry{std::move(value), nullptr};
    }
  }
  return core::status::ok();
}

/// Runs `k` synchronously; an exception becomes the kernel's error.
void compute(ops::kernel& k, ops::kernel_context& ctx) {
  try {
    k.compute(ctx);
  } catch (const std::exception& e) {
    ctx.fail(core::internal_error("kernel threw: ", e.what()));
  } catch (...) {
    ctx.fail(core::internal_error("kernel threw a non-standard exception"));
  }
}

/// Inputs of at least this many elements make an expensive kernel run off
/// its node's actor (see `worth_offloading`).
constexpr int64_t offload_elements = 16384;

/// A kernel run off its node's actor, as a job of CAF's scheduler: it
/// computes, tells the node's actor, and is done. (Once a short-lived actor
/// of its own: CAF makes and registers an actor, and every actor that ends
/// wakes CAF's timer thread to cancel its timeouts -- a context switch on a
/// core the step's kernels were using, ~11 per MLP training step.)
class kernel_job final : public caf::ref_counted, public caf::resumable {
public:
  kernel_job(node_actor done_to, std::shared_ptr<partition_plan> plan,
             ops::kernel* k, ops::kernel_context* ctx, uint64_t call,
             kernel_times* times)
    : done_to_(std::move(done_to)), plan_(std::move(plan)), kernel_(k),
      ctx_(ctx), call_(call), times_(times) {
  }

  subtype_t subtype() const override {
    return function_object;
  }

  resume_result resume(caf::execution_unit* unit, size_t) override {
    if (times_ != nullptr)
      times_->start_us = now_micros();
    compute(*kernel_, *ctx_);
    if (times_ != nullptr)
      times_->end_us = now_micros();
    // Told through this worker, the node's actor (if idle) is scheduled
    // here and runs next, on the worker that is free now. (anon_send has
    // CAF hand it to its workers in turn, waking a sleeping one: with two
    // workers, every other kernel's successor started 9-14 us late in the
    // MLP step.)
    caf::actor_cast<caf::actor>(done_to_)->enqueue(
      nullptr, caf::make_message_id(), caf::make_message(async_done_msg{call_}),
      unit);
    return done;
  }

  void intrusive_ptr_add_ref_impl() override {
    ref();
  }

  void intrusive_ptr_release_impl() override {
    deref();
  }

private:
  node_actor done_to_; ///< Kept alive, and with it the kernel's context.
  std::shared_ptr<partition_plan> plan_; ///< Keeps the kernel and device.
  ops::kernel* kernel_;
  ops::kernel_context* ctx_;
  uint64_t call_;       ///< The id the node's actor knows the call by.
  kernel_times* times_; ///< Set when the step is traced.
};

/// Whether a kernel runs off its node's actor: an expensive kernel (TF's
/// `IsExpensive`) on inputs large enough that handing it to another job
/// (a few microseconds) is small beside it. Its node's actor meanwhile
/// goes on with other tags: iterations of a loop, concurrent steps.
bool worth_offloading(const node_state& st,
                      const std::vector<ops::entry>& inputs) {
  if (!st.expensive_kernel)
    return false;
  int64_t elements = 0;
  for (const auto& e : inputs)
    if (e.value.valid())
      elements += e.value.num_elements();
  return elements >= offload_elements;
}

} // namespace

void run_kernel(self_ptr self, node_state& st, const tag& t,
                std::vector<ops::entry>& inputs) {
  const auto& item = *st.item;
  auto prep = prepare_inputs(item, inputs);
  if (!prep.is_ok()) {
    report(self, st, t, prep);
    send_outputs(self, st, t, value_state::failed, nullptr);
    return;
  }
  auto& kernel = *st.kernel;
  bool offload = !st.async_kernel && worth_offloading(st, inputs);
  if (st.async_kernel || offload) {
    auto id = self->next_async++;
    auto ctx = std::make_unique<ops::kernel_context>(*self->plan->device,
                                                     item.out_types, t.step);
    ctx->set_memory(&item.memory);
    ctx->inputs() = std::move(inputs);
    auto* raw = ctx.get();
    take_token(self); // the kernel's, until its async_done_msg is handled
    bool counted = self->current != nullptr && self->current->add_work(t.iter);
    std::unique_ptr<kernel_times> times;
    if (offload && self->firing_start != 0)
      times = std::make_unique<kernel_times>();
    auto* raw_times = times.get();
    self->async.emplace(id,
                        async_call{static_cast<int>(&st - self->nodes.data()),
                                   t, std::move(ctx), counted, self->tracker,
                                   self->firing_start, std::move(times)});
    self->firing_start = 0; // recorded when the kernel is done
    // The handle keeps this actor, and with it the kernel and its context,
    // alive until the kernel is done.
    auto handle = caf::actor_cast<node_actor>(self);
    if (offload) {
      // A job on this CAF worker's queue (another idle worker steals it),
      // so this actor goes on with other tags meanwhile. The scheduler
      // takes the job's one reference and drops it when the job is done.
      auto* job
        = new kernel_job(handle, self->plan, &kernel, raw, id, raw_times);
      if (auto* unit = self->context(); unit != nullptr)
        unit->exec_later(job);
      else
        self->system().scheduler().enqueue(job);
      return;
    }
    try {
      kernel.compute_async(
        *raw, [handle, id] { caf::anon_send(handle, async_done_msg{id}); });
    } catch (const std::exception& e) {
      raw->fail(core::internal_error("kernel threw: ", e.what()));
      caf::anon_send(handle, async_done_msg{id});
    }
    return;
  }
  auto& ctx = *st.ctx;
  ctx.reset(t.step);
  if (&inputs != &ctx.inputs())
    ctx.inputs().swap(inputs); // keeps both buffers: no allocation per step
  compute(kernel, ctx);
  // The inputs go before the outputs are sent on, as in TensorFlow's
  // executor: a consumer may then reuse an output's buffer in place.
  release_inputs(st, ctx.inputs());
  finish_kernel(self, st, t, ctx);
}

/// Checks a finished kernel's outputs and sends them on.
void finish_kernel(self_ptr self, node_state& st, const tag& t,
                   ops::kernel_context& ctx) {
  auto status = ctx.status();
  if (status.is_ok())
    for (size_t i = 0; i < ctx.outputs().size(); ++i) {
      const auto& e = ctx.outputs()[i];
      // (A Switch leaves its untaken output unset; the plan is read only
      // then, keeping it out of the hop's memory.)
      if (!e.value.valid() && !e.ref && !st.item->unset_outputs_dead) {
        status = core::internal_error("kernel left output ", i, " unset");
        break;
      }
      if (e.value.valid() && e.value.dtype() != ctx.output_type(i)) {
        status = core::internal_error("kernel produced a ",
                                      core::to_string(e.value.dtype()),
                                      " for output ", i, ", declared ",
                                      core::to_string(ctx.output_type(i)));
        break;
      }
    }
  if (!status.is_ok()) {
    report(self, st, t, status);
    send_outputs(self, st, t, value_state::failed, nullptr);
    return;
  }
  if (self->firing_start != 0) // traced
    for (const auto& e : ctx.outputs())
      if (e.value.valid())
        self->firing_bytes += static_cast<int64_t>(e.value.bytes());
  send_outputs(self, st, t, value_state::live, &ctx.outputs());
}

} // namespace actorflow::actors::detail
