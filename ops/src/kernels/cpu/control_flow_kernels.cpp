// The control-flow kernels. They only move values; frames, iterations and
// deadness are the runtime's (docs/control-flow.md).

#include "kernels.hpp"

namespace actorflow::ops::cpu {

namespace {

/// Switch: data to output 1 if pred, else to output 0; the other output
/// stays unset, which the runtime sends on as dead.
class switch_kernel : public cheap_kernel {
public:
  explicit switch_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& pred = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, pred.shape().rank() == 0,
      core::invalid_argument_error("Switch needs a scalar predicate, got "
                                   "shape ",
                                   pred.shape().to_string()));
    auto port = pred.scalar_value<bool>() ? 1 : 0;
    auto& in = ctx.inputs()[0];
    if (in.ref)
      ctx.set_output_ref(static_cast<size_t>(port), in.ref);
    ctx.set_output(static_cast<size_t>(port), ctx.take_input(0));
  }
};

/// Merge: forwards the one input that arrived (the runtime leaves the
/// others empty) and its index.
class merge_kernel : public cheap_kernel {
public:
  explicit merge_kernel(kernel_construction& ctx) {
    // The value_index outputs are made once: a Merge fires per iteration.
    for (size_t i = 0; i < ctx.input_types().size(); ++i)
      indices_.push_back(core::tensor::scalar(static_cast<int32_t>(i)));
  }

  void compute(kernel_context& ctx) override {
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      auto& in = ctx.inputs()[i];
      if (!in.value.valid() && !in.ref)
        continue;
      if (in.ref)
        ctx.set_output_ref(0, in.ref);
      ctx.set_output(0, ctx.take_input(i));
      ctx.set_output(1, indices_[i]);
      return;
    }
    ctx.fail(core::internal_error("Merge ran without a live input"));
  }

private:
  std::vector<core::tensor> indices_;
};

/// Enter, Exit, NextIteration and LoopCond: identities whose meaning is
/// the tag the runtime gives their output.
class forward_kernel : public cheap_kernel {
public:
  explicit forward_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    auto& in = ctx.inputs()[0];
    if (in.ref)
      ctx.set_output_ref(0, in.ref);
    ctx.set_output(0, ctx.take_input(0));
  }
};

class control_trigger_kernel : public cheap_kernel {
public:
  explicit control_trigger_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context&) override {
    // nop
  }
};

} // namespace

void register_control_flow_kernels(kernel_registry& r) {
  r.add_any<switch_kernel>("Switch", device_type);
  r.add_any<switch_kernel>("RefSwitch", device_type);
  r.add_any<merge_kernel>("Merge", device_type);
  for (const char* op :
       {"Enter", "RefEnter", "Exit", "NextIteration", "LoopCond"})
    r.add_any<forward_kernel>(op, device_type);
  r.add_any<control_trigger_kernel>("ControlTrigger", device_type);
}

void register_control_flow_handles(kernel_registry& r, const std::string& dev) {
  memory_spec pred;
  pred.host_inputs = {1};
  add_handle_kernel<switch_kernel>(r, "Switch", dev, "T", pred);
  add_handle_kernel<switch_kernel>(r, "RefSwitch", dev, "T", pred);
  memory_spec index;
  index.host_outputs = {1};
  add_handle_kernel<merge_kernel>(r, "Merge", dev, "T", index);
  for (const char* op : {"Enter", "RefEnter", "Exit", "NextIteration"})
    add_handle_kernel<forward_kernel>(r, op, dev, "T", {});
  memory_spec host;
  host.all_host = true;
  r.add_any<forward_kernel>("LoopCond", dev, host);
  r.add_any<control_trigger_kernel>("ControlTrigger", dev, host);
}

} // namespace actorflow::ops::cpu
