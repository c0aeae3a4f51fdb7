// Resource variables: VarHandleOp names a variable of the engine's resource
// manager with a string handle; the other ops look it up by that handle.

#include "kernels.hpp"

#include <mutex>

#include "actorflow/ops/resource_manager.hpp"
#include "variable_handles.hpp"
#include "variable_update.hpp"

namespace actorflow::ops::cpu {

namespace {

/// The container and name of the variable whose handle is input `input`.
core::status handle_of(kernel_context& ctx, size_t input,
                       std::string* container, std::string* name) {
  const auto& t = ctx.input(input);
  if (t.dtype() != core::dtype::string || t.shape().rank() != 0
      || !parse_variable_handle(t.scalar_value<std::string>(), container, name))
    return core::invalid_argument_error(
      "input ", input, " is not a variable handle (VarHandleOp's output)");
  return core::status::ok();
}

} // namespace

core::status variable_of(kernel_context& ctx, size_t input,
                         resource_manager& resources, core::dtype type,
                         bool create, std::shared_ptr<variable>* out) {
  std::string container, name;
  ACTORFLOW_RETURN_IF_ERROR(handle_of(ctx, input, &container, &name));
  if (create)
    return resources.lookup_or_create(container, name, type,
                                      core::shape::unknown(), out);
  *out = resources.find(container, name);
  if (*out == nullptr)
    return core::not_found_error("variable ", name, " does not exist");
  if ((*out)->dtype() != type)
    return core::invalid_argument_error(
      "variable ", name, " holds ", core::to_string((*out)->dtype()),
      ", the op takes ", core::to_string(type));
  return core::status::ok();
}

namespace {

/// Base of the kernels that take a handle: the engine's resources and the
/// variables' dtype.
class handle_kernel : public cheap_kernel {
public:
  explicit handle_kernel(kernel_construction& ctx)
    : resources_(ctx.resources()) {
    type_ = ctx.attr_or("dtype", core::dtype::invalid);
  }

protected:
  /// A snapshot of the value of the variable whose handle is input 0.
  core::status read_value(kernel_context& ctx, std::string* name,
                          core::tensor* out) const {
    std::shared_ptr<variable> var;
    ACTORFLOW_RETURN_IF_ERROR(
      variable_of(ctx, 0, resources_, type_, false, &var));
    *name = var->name();
    return var->read(out);
  }

  resource_manager& resources_;
  core::dtype type_;
};

class var_handle_kernel : public handle_kernel {
public:
  explicit var_handle_kernel(kernel_construction& ctx) : handle_kernel(ctx) {
    init_ = ctx.get_attr("shape", &shape_);
    container_ = ctx.attr_or("container", std::string{});
    name_ = ctx.attr_or("shared_name", std::string{});
    if (name_.empty())
      name_ = ctx.node().name;
    handle_ = variable_handle(container_, name_);
  }

  void compute(kernel_context& ctx) override {
    std::shared_ptr<variable> var;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, resources_.lookup_or_create(container_, name_, type_, shape_, &var));
    ctx.set_output(0, core::tensor::scalar(handle_));
  }

private:
  core::shape shape_;
  std::string container_;
  std::string name_;
  std::string handle_;
};

class read_variable_kernel : public handle_kernel {
public:
  using handle_kernel::handle_kernel;

  void compute(kernel_context& ctx) override {
    std::string name;
    core::tensor value;
    ACTORFLOW_OP_REQUIRES_OK(ctx, read_value(ctx, &name, &value));
    ctx.set_output(0, std::move(value));
  }
};

class assign_variable_kernel : public handle_kernel {
public:
  explicit assign_variable_kernel(kernel_construction& ctx)
    : handle_kernel(ctx) {
    validate_shape_ = ctx.attr_or("validate_shape", false);
  }

  void compute(kernel_context& ctx) override {
    std::shared_ptr<variable> var;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, variable_of(ctx, 0, resources_, type_, true, &var));
    const auto& value = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx,
      !validate_shape_ || var->declared_shape().compatible_with(value.shape()),
      core::invalid_argument_error("cannot assign a value of shape ",
                                   value.shape().to_string(), " to variable ",
                                   var->name(), " of shape ",
                                   var->declared_shape().to_string()));
    std::lock_guard<std::mutex> guard{var->mutex()};
    var->value_locked() = value;
  }

private:
  bool validate_shape_ = false;
};

/// var += value (or -=) under the variable's lock; in place only when no
/// reader holds the value, otherwise copy on write.
template <class T, bool Subtract>
class update_variable_kernel : public handle_kernel {
public:
  using handle_kernel::handle_kernel;

  void compute(kernel_context& ctx) override {
    std::shared_ptr<variable> var;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, variable_of(ctx, 0, resources_, type_, false, &var));
    std::lock_guard<std::mutex> guard{var->mutex()};
    ACTORFLOW_OP_REQUIRES_OK(ctx, (update_variable_value<T, Subtract>(
                                    *var, var->value_locked(), ctx.input(1))));
  }
};

template <class T>
using assign_add_variable_kernel = update_variable_kernel<T, false>;
template <class T>
using assign_sub_variable_kernel = update_variable_kernel<T, true>;

class resource_gather_kernel : public handle_kernel {
public:
  explicit resource_gather_kernel(kernel_construction& ctx)
    : handle_kernel(ctx) {
    if (ctx.attr_or("batch_dims", int64_t{0}) != 0)
      init_ = core::unimplemented_error("ResourceGather with batch_dims != 0");
  }

  void compute(kernel_context& ctx) override {
    std::string name;
    core::tensor value;
    ACTORFLOW_OP_REQUIRES_OK(ctx, read_value(ctx, &name, &value));
    ACTORFLOW_OP_REQUIRES(ctx, value.shape().rank() >= 1,
                          core::invalid_argument_error(
                            "ResourceGather of variable ", name, ", a scalar"));
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             gather_into_output(ctx, value, ctx.input(1), 0));
  }
};

class var_is_initialized_kernel : public handle_kernel {
public:
  using handle_kernel::handle_kernel;

  void compute(kernel_context& ctx) override {
    std::string container, name;
    ACTORFLOW_OP_REQUIRES_OK(ctx, handle_of(ctx, 0, &container, &name));
    auto var = resources_.find(container, name);
    ctx.set_output(0,
                   core::tensor::scalar(var != nullptr && var->initialized()));
  }
};

/// The shape of a variable's value, whatever its dtype.
class variable_shape_kernel : public cheap_kernel {
public:
  explicit variable_shape_kernel(kernel_construction& ctx)
    : resources_(ctx.resources()) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    std::string container, name;
    ACTORFLOW_OP_REQUIRES_OK(ctx, handle_of(ctx, 0, &container, &name));
    auto var = resources_.find(container, name);
    ACTORFLOW_OP_REQUIRES(
      ctx, var != nullptr,
      core::not_found_error("variable ", name, " does not exist"));
    core::tensor value;
    ACTORFLOW_OP_REQUIRES_OK(ctx, var->read(&value));
    emit_ints(ctx, value.shape().dims(), false);
  }

private:
  resource_manager& resources_;
};

class disable_copy_on_read_kernel : public cheap_kernel {
public:
  explicit disable_copy_on_read_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context&) override {
    // nop: reads share the value's buffer and writers copy on write.
  }
};

} // namespace

void register_resource_variable_kernels(kernel_registry& r) {
  r.add_any<var_handle_kernel>("VarHandleOp", device_type);
  r.add_any<read_variable_kernel>("ReadVariableOp", device_type);
  r.add_any<assign_variable_kernel>("AssignVariableOp", device_type);
  r.add_typed<assign_add_variable_kernel, Eigen::half, Eigen::bfloat16, float,
              double, int8_t, int16_t, int32_t, int64_t, uint8_t>(
    "AssignAddVariableOp", device_type, "dtype");
  r.add_typed<assign_sub_variable_kernel, Eigen::half, Eigen::bfloat16, float,
              double, int8_t, int16_t, int32_t, int64_t, uint8_t>(
    "AssignSubVariableOp", device_type, "dtype");
  r.add_any<resource_gather_kernel>("ResourceGather", device_type);
  r.add_any<var_is_initialized_kernel>("VarIsInitializedOp", device_type);
  r.add_any<variable_shape_kernel>("VariableShape", device_type);
  r.add_any<disable_copy_on_read_kernel>("DisableCopyOnRead", device_type);
}

} // namespace actorflow::ops::cpu
