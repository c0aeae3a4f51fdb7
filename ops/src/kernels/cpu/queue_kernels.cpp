// The queue kernels: a queue node makes its queue when it is built and
// outputs its handle; the queue ops find the queue by handle and complete
// asynchronously, when the queue answers.

#include "actorflow/ops/resource_manager.hpp"
#include "kernels.hpp"

namespace actorflow::ops::cpu {

namespace {

/// FIFOQueueV2 and RandomShuffleQueueV2.
class queue_kernel : public cheap_kernel {
public:
  queue_kernel(kernel_construction& ctx, bool shuffle) {
    queue_spec spec;
    spec.shuffle = shuffle;
    init_ = ctx.get_attr("component_types", &spec.types);
    if (!init_.is_ok())
      return;
    if (spec.types.empty()) {
      init_ = core::invalid_argument_error(
        "a queue needs at least one component type");
      return;
    }
    spec.shapes = ctx.attr_or("shapes", std::vector<core::shape>{});
    if (!spec.shapes.empty() && spec.shapes.size() != spec.types.size()) {
      init_ = core::invalid_argument_error("shapes names ", spec.shapes.size(),
                                           " components, component_types ",
                                           spec.types.size());
      return;
    }
    spec.capacity = ctx.attr_or("capacity", int64_t{-1});
    if (shuffle) {
      spec.min_after_dequeue = ctx.attr_or("min_after_dequeue", int64_t{0});
      auto seed = ctx.attr_or("seed", int64_t{0});
      auto seed2 = ctx.attr_or("seed2", int64_t{0});
      spec.seed = static_cast<uint64_t>(seed)
                  ^ (static_cast<uint64_t>(seed2) * 0x9E3779B97F4A7C15ull);
      if (spec.capacity >= 0 && spec.min_after_dequeue >= spec.capacity) {
        init_ = core::invalid_argument_error(
          "min_after_dequeue (", spec.min_after_dequeue,
          ") must be below the capacity (", spec.capacity, ")");
        return;
      }
    }
    auto name = ctx.attr_or("shared_name", std::string{});
    spec.name = name.empty() ? ctx.node().name : name;
    std::shared_ptr<queue> q;
    std::string handle;
    init_ = ctx.resources().lookup_or_create_queue(
      ctx.attr_or("container", std::string{}), spec.name, spec, &q, &handle);
    handle_ = core::tensor::scalar(handle);
  }

  void compute(kernel_context& ctx) override {
    ctx.set_output(0, handle_);
  }

private:
  core::tensor handle_;
};

/// The queue ops: look the queue up by handle, then run asynchronously.
class queue_op_kernel : public basic_kernel {
public:
  explicit queue_op_kernel(kernel_construction& ctx)
    : resources_(ctx.resources()) {
    // nop
  }

  bool is_async() const noexcept override {
    return true;
  }

  bool is_expensive() const noexcept override {
    return false;
  }

  void compute(kernel_context& ctx) override {
    ctx.fail(core::internal_error("queue ops run asynchronously"));
  }

  void compute_async(kernel_context& ctx, done_callback done) override {
    const auto& h = ctx.input(0);
    if (h.dtype() != core::dtype::string || h.num_elements() != 1) {
      ctx.fail(core::invalid_argument_error("a queue handle is a string "
                                            "scalar, got ",
                                            h.debug_string()));
      done();
      return;
    }
    auto q = resources_.find_queue(h.data<std::string>()[0]);
    if (!q) {
      ctx.fail(core::not_found_error("no queue '", h.data<std::string>()[0],
                                     "' (was its queue node run on this "
                                     "engine?)"));
      done();
      return;
    }
    run(ctx, *q, std::move(done));
  }

protected:
  virtual void run(kernel_context& ctx, queue& q, done_callback done) = 0;

  /// A callback that fails `ctx` with a non-ok status, then calls `done`.
  static queue::done_fn finish(kernel_context& ctx, done_callback done) {
    return [&ctx, done = std::move(done)](core::status st) {
      if (!st.is_ok())
        ctx.fail(std::move(st));
      done();
    };
  }

private:
  resource_manager& resources_;
};

class enqueue_kernel : public queue_op_kernel {
public:
  enqueue_kernel(kernel_construction& ctx, bool many)
    : queue_op_kernel(ctx), many_(many) {
    // nop
  }

protected:
  void run(kernel_context& ctx, queue& q, done_callback done) override {
    std::vector<core::tensor> components;
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
      components.push_back(ctx.input(i));
    auto st = q.check(components, many_);
    if (!st.is_ok()) {
      ctx.fail(std::move(st));
      done();
      return;
    }
    q.enqueue(std::move(components), many_, ctx.step_id(),
              finish(ctx, std::move(done)));
  }

private:
  bool many_;
};

class dequeue_kernel : public queue_op_kernel {
public:
  dequeue_kernel(kernel_construction& ctx, bool many, bool up_to)
    : queue_op_kernel(ctx), many_(many), up_to_(up_to) {
    // nop
  }

protected:
  void run(kernel_context& ctx, queue& q, done_callback done) override {
    int64_t n = 1;
    if (many_) {
      auto st = read_scalar_int(ctx.input(1), "n", &n);
      if (st.is_ok() && n < 0)
        st = core::invalid_argument_error("n must be >= 0, got ", n);
      if (!st.is_ok()) {
        ctx.fail(std::move(st));
        done();
        return;
      }
    }
    if (q.spec().types.size() != ctx.outputs().size()) {
      ctx.fail(core::invalid_argument_error(
        "the queue has ", q.spec().types.size(), " components, the op expects ",
        ctx.outputs().size()));
      done();
      return;
    }
    q.dequeue(n, many_, up_to_, ctx.step_id(),
              [&ctx, done = std::move(done)](
                core::status st, std::vector<core::tensor> components) {
                if (st.is_ok())
                  for (size_t i = 0; i < components.size(); ++i)
                    ctx.set_output(i, std::move(components[i]));
                else
                  ctx.fail(std::move(st));
                done();
              });
  }

private:
  bool many_;
  bool up_to_;
};

class close_kernel : public queue_op_kernel {
public:
  explicit close_kernel(kernel_construction& ctx) : queue_op_kernel(ctx) {
    cancel_ = ctx.attr_or("cancel_pending_enqueues", false);
  }

protected:
  void run(kernel_context& ctx, queue& q, done_callback done) override {
    q.close(cancel_, finish(ctx, std::move(done)));
  }

private:
  bool cancel_ = false;
};

class size_kernel : public queue_op_kernel {
public:
  using queue_op_kernel::queue_op_kernel;

protected:
  void run(kernel_context& ctx, queue& q, done_callback done) override {
    q.size([&ctx, done = std::move(done)](int64_t n) {
      ctx.set_output(0, core::tensor::scalar(static_cast<int32_t>(n)));
      done();
    });
  }
};

template <bool Shuffle>
class queue_kernel_of : public queue_kernel {
public:
  explicit queue_kernel_of(kernel_construction& ctx)
    : queue_kernel(ctx, Shuffle) {
    // nop
  }
};

template <bool Many>
class enqueue_kernel_of : public enqueue_kernel {
public:
  explicit enqueue_kernel_of(kernel_construction& ctx)
    : enqueue_kernel(ctx, Many) {
    // nop
  }
};

template <bool Many, bool UpTo>
class dequeue_kernel_of : public dequeue_kernel {
public:
  explicit dequeue_kernel_of(kernel_construction& ctx)
    : dequeue_kernel(ctx, Many, UpTo) {
    // nop
  }
};

/// StackV2: a new stack for this step (and this iteration, in a loop).
class stack_kernel : public cheap_kernel {
public:
  explicit stack_kernel(kernel_construction& ctx)
    : resources_(ctx.resources()) {
    init_ = ctx.get_attr("elem_type", &type_);
    name_ = ctx.attr_or("stack_name", std::string{});
    if (name_.empty())
      name_ = ctx.node().name;
  }

  void compute(kernel_context& ctx) override {
    int64_t max_size = -1;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, read_scalar_int(ctx.input(0), "max_size", &max_size));
    ctx.set_output(0, core::tensor::scalar(resources_.create_stack(
                        ctx.step_id(), name_, type_, max_size)));
  }

private:
  resource_manager& resources_;
  core::dtype type_ = core::dtype::invalid;
  std::string name_;
};

/// StackPushV2 (`Push`) and StackPopV2.
template <bool Push>
class stack_op_kernel : public cheap_kernel {
public:
  explicit stack_op_kernel(kernel_construction& ctx)
    : resources_(ctx.resources()) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& h = ctx.input(0);
    ACTORFLOW_OP_REQUIRES(
      ctx, h.dtype() == core::dtype::string && h.num_elements() == 1,
      core::invalid_argument_error("a stack handle is a string scalar"));
    auto st = resources_.find_stack(h.data<std::string>()[0]);
    ACTORFLOW_OP_REQUIRES(ctx, st != nullptr,
                          core::not_found_error("no stack '",
                                                h.data<std::string>()[0],
                                                "' in this step"));
    std::lock_guard<std::mutex> guard{st->mtx};
    if constexpr (Push) {
      const auto& x = ctx.input(1);
      ACTORFLOW_OP_REQUIRES(
        ctx, x.dtype() == st->type,
        core::invalid_argument_error("stack '", st->name, "' holds ",
                                     core::to_string(st->type), ", got ",
                                     core::to_string(x.dtype())));
      ACTORFLOW_OP_REQUIRES(
        ctx,
        st->max_size < 0
          || static_cast<int64_t>(st->items.size()) < st->max_size,
        core::resource_exhausted_error("stack '", st->name, "' is full (",
                                       st->max_size, " elements)"));
      st->items.push_back(x);
      ctx.set_output(0, x);
    } else {
      ACTORFLOW_OP_REQUIRES(
        ctx, !st->items.empty(),
        core::out_of_range_error("stack '", st->name, "' is empty"));
      ACTORFLOW_OP_REQUIRES(
        ctx, st->type == ctx.output_type(0),
        core::invalid_argument_error("stack '", st->name, "' holds ",
                                     core::to_string(st->type)));
      ctx.set_output(0, std::move(st->items.back()));
      st->items.pop_back();
    }
  }

private:
  resource_manager& resources_;
};

} // namespace

void register_queue_kernels(kernel_registry& r) {
  r.add_any<stack_kernel>("StackV2", device_type);
  r.add_any<stack_op_kernel<true>>("StackPushV2", device_type);
  r.add_any<stack_op_kernel<false>>("StackPopV2", device_type);
  r.add_any<queue_kernel_of<false>>("FIFOQueueV2", device_type);
  r.add_any<queue_kernel_of<true>>("RandomShuffleQueueV2", device_type);
  r.add_any<enqueue_kernel_of<false>>("QueueEnqueueV2", device_type);
  r.add_any<enqueue_kernel_of<true>>("QueueEnqueueManyV2", device_type);
  r.add_any<dequeue_kernel_of<false, false>>("QueueDequeueV2", device_type);
  r.add_any<dequeue_kernel_of<true, false>>("QueueDequeueManyV2", device_type);
  r.add_any<dequeue_kernel_of<true, true>>("QueueDequeueUpToV2", device_type);
  r.add_any<close_kernel>("QueueCloseV2", device_type);
  r.add_any<size_kernel>("QueueSizeV2", device_type);
}

} // namespace actorflow::ops::cpu
