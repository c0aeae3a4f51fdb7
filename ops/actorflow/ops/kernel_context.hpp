#pragma once

#include <cstdint>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/ops/entry.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/op_def.hpp"

namespace actorflow::devices {
class device;
} // namespace actorflow::devices

namespace actorflow::ops {

/// What a kernel sees while it runs one step: inputs, outputs, the device
/// and a status to fail with.
///
/// The runtime fills the inputs (reading variables for inputs that expect
/// values) and takes the outputs afterwards.
class kernel_context {
public:
  kernel_context(devices::device& dev, const std::vector<arg_type>& out_types,
                 uint64_t step_id);

  devices::device& device() const noexcept {
    return device_;
  }

  uint64_t step_id() const noexcept {
    return step_id_;
  }

  size_t num_inputs() const noexcept {
    return inputs_.size();
  }

  /// Returns input `i` as a tensor.
  const core::tensor& input(size_t i) const noexcept {
    return inputs_[i].value;
  }

  /// Moves input `i` out, for kernels that forward it (Identity): no
  /// reference count changes hands between threads.
  core::tensor take_input(size_t i) noexcept {
    return std::move(inputs_[i].value);
  }

  /// Returns the variable behind reference input `i`.
  const std::shared_ptr<variable>& input_ref(size_t i) const noexcept {
    return inputs_[i].ref;
  }

  /// The input slots; the runtime fills them before `compute`.
  std::vector<entry>& inputs() noexcept {
    return inputs_;
  }

  /// Returns the declared dtype of output `i`.
  core::dtype output_type(size_t i) const noexcept {
    return out_types_[i].type;
  }

  /// Allocates output `i` with its declared dtype on the device: in the
  /// device's memory, or the host's where the kernel's memory spec says so.
  core::status allocate_output(size_t i, const core::shape& s,
                               core::tensor** out);

  /// Sets the kernel's memory spec (the runtime does, from the kernel
  /// registry; none: every output in the device's memory).
  void set_memory(const memory_spec* spec) noexcept {
    memory_ = spec;
  }

  /// Makes output `i` share the buffer of input `in` when nothing else
  /// holds that buffer and its dtype and shape are the output's (TF's
  /// `forward_input_or_allocate_output`): an element-wise kernel then
  /// writes its result over its input and allocates nothing. Otherwise
  /// allocates, as `allocate_output`. The input stays readable.
  core::status forward_input_or_allocate_output(size_t in, size_t i,
                                                const core::shape& s,
                                                core::tensor** out);

  void set_output(size_t i, core::tensor value) {
    outputs_[i].value = std::move(value);
  }

  void set_output_ref(size_t i, std::shared_ptr<variable> ref) {
    outputs_[i].ref = std::move(ref);
  }

  std::vector<entry>& outputs() noexcept {
    return outputs_;
  }

  /// Records a failure; the first one wins.
  void fail(core::status st) {
    if (status_.is_ok())
      status_ = std::move(st);
  }

  const core::status& status() const noexcept {
    return status_;
  }

  /// Clears outputs and status for the next step; the runtime manages the
  /// inputs.
  void reset(uint64_t step_id);

private:
  devices::device& device_;
  const std::vector<arg_type>& out_types_;
  uint64_t step_id_;
  std::vector<entry> inputs_;
  std::vector<entry> outputs_;
  core::status status_;
  const memory_spec* memory_ = nullptr;
};

/// Fails `ctx` and returns from the kernel unless `cond` holds.
#define ACTORFLOW_OP_REQUIRES(ctx, cond, st)                                   \
  do {                                                                         \
    if (!(cond)) {                                                             \
      (ctx).fail(st);                                                          \
      return;                                                                  \
    }                                                                          \
  } while (false)

/// Fails `ctx` and returns from the kernel unless `expr` is ok.
#define ACTORFLOW_OP_REQUIRES_OK(ctx, expr)                                    \
  do {                                                                         \
    ::actorflow::core::status af_st_ = (expr);                                 \
    if (!af_st_.is_ok()) {                                                     \
      (ctx).fail(std::move(af_st_));                                           \
      return;                                                                  \
    }                                                                          \
  } while (false)

} // namespace actorflow::ops
