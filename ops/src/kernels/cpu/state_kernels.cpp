#include "kernels.hpp"

#include <mutex>

#include <unsupported/Eigen/CXX11/Tensor>

#include "actorflow/ops/resource_manager.hpp"
#include "variable_update.hpp"

namespace actorflow::ops::cpu {

namespace {

/// Outputs a reference to its variable, looked up (or created) in the
/// engine's resource manager on every run so that a reset container takes
/// effect at the next step.
class variable_kernel : public cheap_kernel {
public:
  explicit variable_kernel(kernel_construction& ctx)
    : resources_(ctx.resources()) {
    init_ = ctx.get_attr("dtype", &type_);
    if (init_.is_ok())
      init_ = ctx.get_attr("shape", &shape_);
    container_ = ctx.attr_or("container", std::string{});
    name_ = ctx.attr_or("shared_name", std::string{});
    if (name_.empty())
      name_ = ctx.node().name;
  }

  void compute(kernel_context& ctx) override {
    std::shared_ptr<variable> var;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, resources_.lookup_or_create(container_, name_, type_, shape_, &var));
    ctx.set_output_ref(0, std::move(var));
  }

private:
  resource_manager& resources_;
  core::dtype type_ = core::dtype::invalid;
  core::shape shape_;
  std::string container_;
  std::string name_;
};

/// Replaces the variable's value by its input (sharing the buffer: the
/// value is immutable).
class assign_kernel : public cheap_kernel {
public:
  explicit assign_kernel(kernel_construction& ctx) {
    validate_shape_ = ctx.attr_or("validate_shape", true);
  }

  void compute(kernel_context& ctx) override {
    const auto& var = ctx.input_ref(0);
    const auto& value = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(ctx, var != nullptr,
                          core::invalid_argument_error(
                            "Assign needs a variable reference as input 0"));
    ACTORFLOW_OP_REQUIRES(ctx, value.dtype() == var->dtype(),
                          core::invalid_argument_error(
                            "cannot assign a ", core::to_string(value.dtype()),
                            " value to variable ", var->name(), " of dtype ",
                            core::to_string(var->dtype())));
    ACTORFLOW_OP_REQUIRES(
      ctx,
      !validate_shape_ || var->declared_shape().compatible_with(value.shape()),
      core::invalid_argument_error("cannot assign a value of shape ",
                                   value.shape().to_string(), " to variable ",
                                   var->name(), " of shape ",
                                   var->declared_shape().to_string()));
    {
      std::lock_guard<std::mutex> guard{var->mutex()};
      var->value_locked() = value;
    }
    ctx.set_output_ref(0, var);
  }

private:
  bool validate_shape_ = true;
};

/// var += value (or -=). With use_locking the whole update holds the
/// variable's lock, so concurrent updates all count. Without it the update
/// is computed outside the lock and concurrent updates may be lost, as in
/// TensorFlow, but never tear. In place only when nobody else holds the
/// buffer; otherwise copy on write.
template <class T, bool Subtract>
class assign_update_kernel : public cheap_kernel {
public:
  explicit assign_update_kernel(kernel_construction& ctx) {
    use_locking_ = ctx.attr_or("use_locking", false);
  }

  void compute(kernel_context& ctx) override {
    const auto& var = ctx.input_ref(0);
    const auto& delta = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(ctx, var != nullptr,
                          core::invalid_argument_error(
                            "update needs a variable reference as input 0"));
    if (use_locking_) {
      std::lock_guard<std::mutex> guard{var->mutex()};
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, (update_variable_value<T, Subtract>(*var, var->value_locked(),
                                                 delta, host(ctx))));
    } else {
      core::tensor current;
      ACTORFLOW_OP_REQUIRES_OK(ctx, var->read(&current));
      core::tensor next;
      ACTORFLOW_OP_REQUIRES_OK(ctx, current.deep_copy(&next));
      current = core::tensor{};
      ACTORFLOW_OP_REQUIRES_OK(ctx, (update_variable_value<T, Subtract>(
                                      *var, next, delta, host(ctx))));
      std::lock_guard<std::mutex> guard{var->mutex()};
      var->value_locked() = std::move(next);
    }
    ctx.set_output_ref(0, var);
  }

private:
  static std::shared_ptr<core::allocator> host(kernel_context& ctx) {
    return ctx.device().allocator(core::memory_type::host);
  }

  bool use_locking_ = false;
};

template <class T>
using assign_add_kernel = assign_update_kernel<T, false>;
template <class T>
using assign_sub_kernel = assign_update_kernel<T, true>;

} // namespace

void register_state_kernels(kernel_registry& r) {
  r.add_any<variable_kernel>("VariableV2", device_type);
  r.add_any<assign_kernel>("Assign", device_type);
  r.add_typed<assign_add_kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("AssignAdd", device_type);
  r.add_typed<assign_sub_kernel, Eigen::half, Eigen::bfloat16, float, double,
              int32_t, int64_t>("AssignSub", device_type);
}

void register_state_handles(kernel_registry& r, const std::string& dev) {
  // Variables of int32 stay on the CPU (soft placement), as int32 values
  // do; int64 ones (labels held for training) live on the GPU, but one
  // with an update that has no GPU kernel (AssignAdd of a global step)
  // goes to the CPU with it.
  for (auto type :
       {core::dtype::float16, core::dtype::bfloat16, core::dtype::float32,
        core::dtype::float64, core::dtype::int64}) {
    r.add("VariableV2", dev, type,
          &kernel_registry::make_kernel<variable_kernel>, "dtype");
    r.add("Assign", dev, type, &kernel_registry::make_kernel<assign_kernel>);
  }
}

} // namespace actorflow::ops::cpu
