#include "kernels.hpp"

namespace actorflow::ops::cpu {

namespace {

/// Emits the tensor held in its `value` attr, built once.
class const_kernel : public cheap_kernel {
public:
  explicit const_kernel(kernel_construction& ctx) {
    init_ = ctx.get_attr("value", &value_);
  }

  void compute(kernel_context& ctx) override {
    ctx.set_output(0, value_);
  }

private:
  core::tensor value_;
};

/// Forwards its input.
class identity_kernel : public cheap_kernel {
public:
  explicit identity_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    ctx.set_output(0, ctx.take_input(0));
  }
};

/// Forwards each input to the output of its index (IdentityN).
class identity_n_kernel : public cheap_kernel {
public:
  explicit identity_n_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      ctx.set_output(i, ctx.take_input(i));
  }
};

/// Does nothing; used for control dependencies.
class no_op_kernel : public cheap_kernel {
public:
  explicit no_op_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context&) override {
    // nop
  }
};

/// Runs only when a placeholder was not fed.
class placeholder_kernel : public basic_kernel {
public:
  explicit placeholder_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    ctx.fail(core::invalid_argument_error(
      "you must feed a value for placeholder (pass it in the feeds of run)"));
  }
};

} // namespace

void register_array_kernels(kernel_registry& r) {
  r.add_any<const_kernel>("Const", device_type);
  r.add_any<identity_kernel>("Identity", device_type);
  r.add_any<identity_kernel>("StopGradient", device_type);
  r.add_any<identity_kernel>("PlaceholderWithDefault", device_type);
  r.add_any<identity_n_kernel>("IdentityN", device_type);
  r.add_any<no_op_kernel>("NoOp", device_type);
  r.add_any<placeholder_kernel>("Placeholder", device_type);
}

void register_array_handles(kernel_registry& r, const std::string& dev) {
  memory_spec host;
  host.all_host = true;
  // A Const's value is made on the host; graph::insert_memory_copies puts
  // a copy behind it where a kernel wants it in device memory.
  r.add_any<const_kernel>("Const", dev, host);
  add_handle_kernel<identity_kernel>(r, "Identity", dev, "T", {});
  add_handle_kernel<identity_kernel>(r, "StopGradient", dev, "T", {});
  r.add_any<no_op_kernel>("NoOp", dev, host);
}

} // namespace actorflow::ops::cpu
