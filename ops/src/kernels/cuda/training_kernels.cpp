// The optimizers' updates on the GPU: ApplyGradientDescent, ApplyMomentum,
// ApplyAdam. Each locks its variables, copies a value someone else holds
// (copy on write, on the device), and updates in place on the stream.

#include <algorithm>
#include <array>
#include <mutex>

#include "actorflow/ops/variable.hpp"
#include "gpu_kernels.hpp"

namespace actorflow::ops::gpu {

namespace {

/// Reads host scalar input `i` as a double.
core::status host_scalar(const kernel_context& ctx, size_t i, double* out) {
  const auto& t = ctx.input(i);
  if (t.num_elements() != 1 || t.shape().rank() != 0)
    return core::invalid_argument_error(
      "input ", i, " must be a scalar, got shape ", t.shape().to_string());
  switch (t.dtype()) {
    case core::dtype::float32:
      *out = t.scalar_value<float>();
      return core::status::ok();
    case core::dtype::float64:
      *out = t.scalar_value<double>();
      return core::status::ok();
    default:
      return core::unimplemented_error("input ", i, " of dtype ",
                                       core::to_string(t.dtype()));
  }
}

/// The variables of the first `Slots` inputs, locked in address order,
/// each made writable (its own buffer, of the gradient's shape).
template <size_t Slots>
core::status writable_slots(kernel_context& ctx, const core::shape& grad_shape,
                            std::vector<std::unique_lock<std::mutex>>* locks,
                            std::array<core::tensor*, Slots>* out) {
  std::array<variable*, Slots> vars{};
  for (size_t i = 0; i < Slots; ++i) {
    vars[i] = ctx.input_ref(i).get();
    if (vars[i] == nullptr)
      return core::invalid_argument_error("input ", i,
                                          " must be a variable reference");
  }
  auto order = std::vector<variable*>(vars.begin(), vars.end());
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  for (auto* v : order)
    locks->emplace_back(v->mutex());
  auto& dev = device_of(ctx);
  for (size_t i = 0; i < Slots; ++i) {
    auto& value = vars[i]->value_locked();
    if (!value.valid())
      return core::failed_precondition_error(
        "attempting to use uninitialized value ", vars[i]->name());
    if (value.shape() != grad_shape)
      return core::invalid_argument_error(
        "variable ", vars[i]->name(), " has shape ", value.shape().to_string(),
        ", the gradient ", grad_shape.to_string());
    if (value.memory() != core::memory_type::device)
      return core::internal_error("variable ", vars[i]->name(),
                                  " is not in device memory");
    if (!value.unique()) {
      core::tensor copy;
      ACTORFLOW_RETURN_IF_ERROR(dev.copy_on_device(value, &copy));
      value = std::move(copy);
    }
    (*out)[i] = &value;
  }
  return core::status::ok();
}

template <class T>
class gradient_descent_kernel : public basic_kernel {
public:
  explicit gradient_descent_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    double alpha = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, host_scalar(ctx, 1, &alpha));
    const auto& delta = ctx.input(2);
    std::vector<std::unique_lock<std::mutex>> locks;
    std::array<core::tensor*, 1> v{};
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             writable_slots(ctx, delta.shape(), &locks, &v));
    elem type;
    ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
    auto& dev = device_of(ctx);
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(apply_gradient_descent(
                      type, v[0]->raw_mutable_data(), alpha, delta.raw_data(),
                      delta.num_elements(), dev.compute_stream()),
                    "ApplyGradientDescent"));
    ctx.set_output_ref(0, ctx.input_ref(0));
  }
};

template <class T>
class momentum_kernel : public basic_kernel {
public:
  explicit momentum_kernel(kernel_construction& ctx)
    : nesterov_(ctx.attr_or("use_nesterov", false)) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    double lr = 0;
    double momentum = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, host_scalar(ctx, 2, &lr));
    ACTORFLOW_OP_REQUIRES_OK(ctx, host_scalar(ctx, 4, &momentum));
    const auto& grad = ctx.input(3);
    std::vector<std::unique_lock<std::mutex>> locks;
    std::array<core::tensor*, 2> v{};
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             writable_slots(ctx, grad.shape(), &locks, &v));
    elem type;
    ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
    auto& dev = device_of(ctx);
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, launched(apply_momentum(type, v[0]->raw_mutable_data(),
                                   v[1]->raw_mutable_data(), lr,
                                   grad.raw_data(), momentum, nesterov_,
                                   grad.num_elements(), dev.compute_stream()),
                    "ApplyMomentum"));
    ctx.set_output_ref(0, ctx.input_ref(0));
  }

private:
  bool nesterov_;
};

template <class T>
class adam_kernel : public basic_kernel {
public:
  explicit adam_kernel(kernel_construction& ctx)
    : nesterov_(ctx.attr_or("use_nesterov", false)) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    std::array<double, 6> h{}; // beta1_power .. epsilon
    for (size_t k = 0; k < h.size(); ++k)
      ACTORFLOW_OP_REQUIRES_OK(ctx, host_scalar(ctx, 3 + k, &h[k]));
    const auto& grad = ctx.input(9);
    std::vector<std::unique_lock<std::mutex>> locks;
    std::array<core::tensor*, 3> v{};
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             writable_slots(ctx, grad.shape(), &locks, &v));
    elem type;
    ACTORFLOW_OP_REQUIRES_OK(ctx, elem_of(core::dtype_v<T>, &type));
    auto& dev = device_of(ctx);
    ACTORFLOW_OP_REQUIRES_OK(
      ctx,
      launched(apply_adam(type, v[0]->raw_mutable_data(),
                          v[1]->raw_mutable_data(), v[2]->raw_mutable_data(),
                          h[0], h[1], h[2], h[3], h[4], h[5], grad.raw_data(),
                          nesterov_, grad.num_elements(), dev.compute_stream()),
               "ApplyAdam"));
    ctx.set_output_ref(0, ctx.input_ref(0));
  }

private:
  bool nesterov_;
};

} // namespace

void register_training_kernels(kernel_registry& r) {
  r.add_typed<gradient_descent_kernel, float, double>(
    "ApplyGradientDescent", device_type, "T", host_memory({1}, {}));
  r.add_typed<momentum_kernel, float, double>("ApplyMomentum", device_type, "T",
                                              host_memory({2, 4}, {}));
  r.add_typed<adam_kernel, float, double>("ApplyAdam", device_type, "T",
                                          host_memory({3, 4, 5, 6, 7, 8}, {}));
}

} // namespace actorflow::ops::gpu
