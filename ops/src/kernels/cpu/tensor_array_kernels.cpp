// The TensorArray kernels: TensorArrayV3 makes an array for the step and
// outputs its handle; the other ops find it by handle. Every op on an
// existing array passes its flow input on (or outputs a value), so the
// flow edges order them.

#include "actorflow/ops/resource_manager.hpp"
#include "element_copy.hpp"
#include "kernels.hpp"

namespace actorflow::ops::cpu {

namespace {

/// A string scalar handle, or a status saying what input 0 was instead.
core::status handle_of(const core::tensor& h, const std::string** out) {
  if (h.dtype() != core::dtype::string || h.num_elements() != 1)
    return core::invalid_argument_error(
      "a TensorArray handle is a string scalar, got ", h.debug_string(2));
  *out = h.data<std::string>();
  return core::status::ok();
}

/// Reads `t` (an int32/int64 vector or scalar) as indices, after checking
/// it is one (read_ints does not).
core::status int_list(const core::tensor& t, const char* what,
                      std::vector<int64_t>* out) {
  if (t.shape().rank() > 1
      || (t.dtype() != core::dtype::int32 && t.dtype() != core::dtype::int64))
    return core::invalid_argument_error(what, " must be an int vector, got ",
                                        t.debug_string(2));
  *out = read_ints(t);
  return core::status::ok();
}

/// Copies `count` elements from `src` at `src_at` to `dst` at `dst_at`.
void copy_run(const core::tensor& src, int64_t src_at, core::tensor& dst,
              int64_t dst_at, int64_t count) {
  copy_box(src, src_at, {1}, dst, dst_at, {1}, {count});
}

/// Dimensions 1.. of `s`.
core::shape tail(const core::shape& s) {
  return core::shape{
    std::vector<int64_t>(s.dims().begin() + 1, s.dims().end())};
}

/// The base of the kernels on an existing array: finds it by input 0.
class array_kernel : public cheap_kernel {
public:
  explicit array_kernel(kernel_construction& ctx)
    : resources_(ctx.resources()) {
    // nop
  }

  void compute(kernel_context& ctx) final {
    const std::string* handle = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, handle_of(ctx.input(0), &handle));
    auto ta = resources_.find_tensor_array(*handle);
    ACTORFLOW_OP_REQUIRES(
      ctx, ta != nullptr,
      core::not_found_error("no TensorArray '", *handle, "' in this step"));
    run(ctx, *handle, *ta);
  }

protected:
  virtual void run(kernel_context& ctx, const std::string& handle,
                   tensor_array& ta)
    = 0;

  /// Fails unless the array holds the dtype output `i` declares.
  bool check_type(kernel_context& ctx, const tensor_array& ta, size_t i) {
    if (ta.type() == ctx.output_type(i))
      return true;
    ctx.fail(core::invalid_argument_error(
      "TensorArray '", ta.name(), "' holds ", core::to_string(ta.type()),
      ", the op reads ", core::to_string(ctx.output_type(i))));
    return false;
  }

  resource_manager& resources_;
};

/// TensorArrayV3.
class make_kernel : public cheap_kernel {
public:
  explicit make_kernel(kernel_construction& ctx) : resources_(ctx.resources()) {
    init_ = ctx.get_attr("dtype", &opts_.type);
    opts_.element_shape = ctx.attr_or("element_shape", core::shape::unknown());
    opts_.dynamic_size = ctx.attr_or("dynamic_size", false);
    opts_.clear_after_read = ctx.attr_or("clear_after_read", true);
    opts_.identical_element_shapes
      = ctx.attr_or("identical_element_shapes", false);
    opts_.name = ctx.attr_or("tensor_array_name", std::string{});
    if (opts_.name.empty())
      opts_.name = ctx.node().name;
  }

  void compute(kernel_context& ctx) override {
    auto opts = opts_;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             read_scalar_int(ctx.input(0), "size", &opts.size));
    ACTORFLOW_OP_REQUIRES(
      ctx, opts.size >= 0,
      core::invalid_argument_error("a TensorArray's size must be >= 0, got ",
                                   opts.size));
    ctx.set_output(0, core::tensor::scalar(resources_.create_tensor_array(
                        ctx.step_id(), std::move(opts))));
    ctx.set_output(1, core::tensor::scalar(0.0f));
  }

private:
  resource_manager& resources_;
  tensor_array_options opts_;
};

/// TensorArrayGradV3 and TensorArrayGradWithShape.
class grad_kernel : public array_kernel {
public:
  explicit grad_kernel(kernel_construction& ctx) : array_kernel(ctx) {
    init_ = ctx.get_attr("source", &source_);
  }

  void run(kernel_context& ctx, const std::string& handle,
           tensor_array&) override {
    std::vector<int64_t> prepend;
    if (ctx.num_inputs() > 2)
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, int_list(ctx.input(2), "shape_to_prepend", &prepend));
    std::string grad;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, resources_.tensor_array_grad(handle, source_, prepend, &grad));
    ctx.set_output(0, core::tensor::scalar(std::move(grad)));
    ctx.set_output(1, ctx.input(1));
  }

private:
  std::string source_;
};

/// TensorArrayWriteV3.
class write_kernel : public array_kernel {
public:
  using array_kernel::array_kernel;

  void run(kernel_context& ctx, const std::string&, tensor_array& ta) override {
    int64_t index = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             read_scalar_int(ctx.input(1), "index", &index));
    ACTORFLOW_OP_REQUIRES_OK(ctx, ta.write(index, ctx.input(2)));
    ctx.set_output(0, ctx.input(3));
  }
};

/// TensorArrayReadV3.
class read_kernel : public array_kernel {
public:
  using array_kernel::array_kernel;

  void run(kernel_context& ctx, const std::string&, tensor_array& ta) override {
    if (!check_type(ctx, ta, 0))
      return;
    int64_t index = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             read_scalar_int(ctx.input(1), "index", &index));
    core::tensor value;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ta.read(index, &value));
    ctx.set_output(0, std::move(value));
  }
};

/// TensorArrayGatherV3 (and, through all indices, TensorFlow's stack()):
/// the elements at `indices` stacked along a new first dimension.
class gather_kernel : public array_kernel {
public:
  explicit gather_kernel(kernel_construction& ctx) : array_kernel(ctx) {
    element_shape_ = ctx.attr_or("element_shape", core::shape::unknown());
  }

  void run(kernel_context& ctx, const std::string&, tensor_array& ta) override {
    if (!check_type(ctx, ta, 0))
      return;
    std::vector<int64_t> indices;
    ACTORFLOW_OP_REQUIRES_OK(ctx, int_list(ctx.input(1), "indices", &indices));
    std::vector<core::tensor> items;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ta.read_many(indices, &items));
    auto element = element_shape_;
    if (!items.empty())
      element = items.front().shape();
    else if (element.compatible_with(ta.element_shape()))
      element = element.merge(ta.element_shape());
    ACTORFLOW_OP_REQUIRES(
      ctx, element.fully_defined(),
      core::invalid_argument_error(
        "TensorArray '", ta.name(),
        "': gathering no elements needs a fully defined element shape, "
        "the array's is ",
        element.to_string()));
    for (size_t k = 0; k < items.size(); ++k)
      ACTORFLOW_OP_REQUIRES(
        ctx, items[k].shape() == element,
        core::invalid_argument_error(
          "TensorArray '", ta.name(), "': element ", indices[k], " has shape ",
          items[k].shape().to_string(), ", element ", indices[0], " ",
          element.to_string(), "; gathering needs one shape"));
    auto dims = element.dims();
    dims.insert(dims.begin(), static_cast<int64_t>(items.size()));
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{std::move(dims)}, &out));
    auto per = element.num_elements();
    for (size_t k = 0; k < items.size(); ++k)
      copy_run(items[k], 0, *out, static_cast<int64_t>(k) * per, per);
  }

private:
  core::shape element_shape_;
};

/// TensorArrayScatterV3 (and, through all indices, TensorFlow's
/// unstack()): row k of the value written at indices[k].
class scatter_kernel : public array_kernel {
public:
  using array_kernel::array_kernel;

  void run(kernel_context& ctx, const std::string&, tensor_array& ta) override {
    std::vector<int64_t> indices;
    ACTORFLOW_OP_REQUIRES_OK(ctx, int_list(ctx.input(1), "indices", &indices));
    const auto& value = ctx.input(2);
    auto n = static_cast<int64_t>(indices.size());
    ACTORFLOW_OP_REQUIRES(
      ctx, value.shape().rank() >= 1 && value.shape().dim(0) == n,
      core::invalid_argument_error("TensorArray '", ta.name(), "': scattering ",
                                   n, " indices needs a value with ", n,
                                   " rows, got shape ",
                                   value.shape().to_string()));
    auto row = tail(value.shape());
    auto per = row.num_elements();
    for (int64_t k = 0; k < n; ++k) {
      core::tensor t{value.dtype(), row};
      copy_run(value, k * per, t, 0, per);
      ACTORFLOW_OP_REQUIRES_OK(ctx,
                               ta.write(indices[static_cast<size_t>(k)], t));
    }
    ctx.set_output(0, ctx.input(3));
  }
};

/// TensorArrayConcatV3: every element joined along its first dimension,
/// and each one's length there.
class concat_kernel : public array_kernel {
public:
  explicit concat_kernel(kernel_construction& ctx) : array_kernel(ctx) {
    except0_ = ctx.attr_or("element_shape_except0", core::shape::unknown());
  }

  void run(kernel_context& ctx, const std::string&, tensor_array& ta) override {
    if (!check_type(ctx, ta, 0))
      return;
    int64_t size = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ta.size(&size));
    std::vector<int64_t> indices(static_cast<size_t>(size));
    for (int64_t i = 0; i < size; ++i)
      indices[static_cast<size_t>(i)] = i;
    std::vector<core::tensor> items;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ta.read_many(indices, &items));
    core::shape rest = except0_;
    int64_t total = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      const auto& s = items[k].shape();
      ACTORFLOW_OP_REQUIRES(ctx, s.rank() >= 1 && (k == 0 || tail(s) == rest),
                            core::invalid_argument_error(
                              "TensorArray '", ta.name(), "': element ", k,
                              " has shape ", s.to_string(),
                              "; concatenating needs rank >= 1 and one shape "
                              "past the first dimension, ",
                              rest.to_string()));
      if (k == 0)
        rest = tail(s);
      total += s.dim(0);
    }
    ACTORFLOW_OP_REQUIRES(
      ctx, rest.fully_defined(),
      core::invalid_argument_error(
        "TensorArray '", ta.name(),
        "': concatenating no elements needs a fully defined "
        "element_shape_except0, got ",
        rest.to_string()));
    auto dims = rest.dims();
    dims.insert(dims.begin(), total);
    core::tensor* out = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(0, core::shape{std::move(dims)}, &out));
    core::tensor* lengths = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, ctx.allocate_output(
             1, core::shape{static_cast<int64_t>(items.size())}, &lengths));
    int64_t at = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      copy_run(items[k], 0, *out, at, items[k].num_elements());
      at += items[k].num_elements();
      lengths->mutable_data<int64_t>()[k] = items[k].shape().dim(0);
    }
  }

private:
  core::shape except0_;
};

/// TensorArraySplitV3: rows [sum(lengths[:k]), sum(lengths[:k+1])) of the
/// value written at index k.
class split_kernel : public array_kernel {
public:
  using array_kernel::array_kernel;

  void run(kernel_context& ctx, const std::string&, tensor_array& ta) override {
    const auto& value = ctx.input(1);
    std::vector<int64_t> lengths;
    ACTORFLOW_OP_REQUIRES_OK(ctx, int_list(ctx.input(2), "lengths", &lengths));
    int64_t total = 0;
    bool non_negative = true;
    for (auto l : lengths) {
      total += l;
      non_negative = non_negative && l >= 0;
    }
    ACTORFLOW_OP_REQUIRES(
      ctx,
      non_negative && value.shape().rank() >= 1
        && value.shape().dim(0) == total,
      core::invalid_argument_error(
        "TensorArray '", ta.name(), "': splitting a value of shape ",
        value.shape().to_string(),
        " needs lengths >= 0 that sum to its first dimension, they sum to ",
        total));
    auto rest = tail(value.shape());
    auto per = rest.num_elements();
    int64_t row = 0;
    for (size_t k = 0; k < lengths.size(); ++k) {
      auto dims = rest.dims();
      dims.insert(dims.begin(), lengths[k]);
      core::tensor t{value.dtype(), core::shape{std::move(dims)}};
      copy_run(value, row * per, t, 0, lengths[k] * per);
      row += lengths[k];
      ACTORFLOW_OP_REQUIRES_OK(ctx, ta.write(static_cast<int64_t>(k), t));
    }
    ctx.set_output(0, ctx.input(3));
  }
};

/// TensorArraySizeV3.
class size_kernel : public array_kernel {
public:
  using array_kernel::array_kernel;

  void run(kernel_context& ctx, const std::string&, tensor_array& ta) override {
    int64_t n = 0;
    ACTORFLOW_OP_REQUIRES_OK(ctx, ta.size(&n));
    ctx.set_output(0, core::tensor::scalar(static_cast<int32_t>(n)));
  }
};

/// TensorArrayCloseV3.
class close_kernel : public array_kernel {
public:
  using array_kernel::array_kernel;

  void run(kernel_context&, const std::string&, tensor_array& ta) override {
    ta.close();
  }
};

} // namespace

void register_tensor_array_kernels(kernel_registry& r) {
  r.add_any<make_kernel>("TensorArrayV3", device_type);
  r.add_any<grad_kernel>("TensorArrayGradV3", device_type);
  r.add_any<grad_kernel>("TensorArrayGradWithShape", device_type);
  r.add_any<write_kernel>("TensorArrayWriteV3", device_type);
  r.add_any<read_kernel>("TensorArrayReadV3", device_type);
  r.add_any<gather_kernel>("TensorArrayGatherV3", device_type);
  r.add_any<scatter_kernel>("TensorArrayScatterV3", device_type);
  r.add_any<concat_kernel>("TensorArrayConcatV3", device_type);
  r.add_any<split_kernel>("TensorArraySplitV3", device_type);
  r.add_any<size_kernel>("TensorArraySizeV3", device_type);
  r.add_any<close_kernel>("TensorArrayCloseV3", device_type);
}

} // namespace actorflow::ops::cpu
