// TensorList kernels: a list is the value of a scalar variant tensor; the
// ops that change one copy it (sharing the items' buffers) unless they hold
// the only reference, as TensorFlow's do.

#include "kernels.hpp"

#include <cstring>
#include <memory>

#include "actorflow/ops/tensor_list.hpp"

namespace actorflow::ops::cpu {

namespace {

/// A shape given as a tensor: int32 or int64, -1 for an unknown dimension,
/// a scalar -1 for an unknown rank.
core::status shape_of(const core::tensor& t, core::shape* out) {
  if (t.dtype() != core::dtype::int32 && t.dtype() != core::dtype::int64)
    return core::invalid_argument_error("an element shape is int32 or int64");
  auto at = [&](int64_t i) {
    return t.dtype() == core::dtype::int32 ? int64_t{t.data<int32_t>()[i]}
                                           : t.data<int64_t>()[i];
  };
  if (t.shape().rank() == 0) {
    if (at(0) != -1)
      return core::invalid_argument_error(
        "a scalar element shape must be -1 (unknown), got ", at(0));
    *out = core::shape::unknown();
    return core::status::ok();
  }
  if (t.shape().rank() != 1)
    return core::invalid_argument_error("an element shape is a vector");
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (at(i) < -1)
      return core::invalid_argument_error("an element shape has dimension ",
                                          at(i));
    dims.push_back(at(i));
  }
  *out = core::shape{std::move(dims)};
  return core::status::ok();
}

/// The list in input `i`.
core::status list_of(const kernel_context& ctx, size_t i,
                     const tensor_list** out) {
  const auto& t = ctx.input(i);
  const auto* list
    = t.dtype() == core::dtype::variant && t.shape().rank() == 0
        ? dynamic_cast<const tensor_list*>(t.data<core::variant>()[0].get())
        : nullptr;
  if (list == nullptr)
    return core::invalid_argument_error("input ", i, " is not a TensorList");
  *out = list;
  return core::status::ok();
}

/// The list in input 0 to change: itself when nothing else holds it,
/// otherwise a copy.
core::status writable_list(const kernel_context& ctx,
                           std::shared_ptr<tensor_list>* out) {
  const tensor_list* list = nullptr;
  ACTORFLOW_RETURN_IF_ERROR(list_of(ctx, 0, &list));
  const auto& value = ctx.input(0).data<core::variant>()[0];
  if (ctx.input(0).unique() && value.use_count() == 1)
    *out = std::const_pointer_cast<tensor_list>(
      std::static_pointer_cast<const tensor_list>(value));
  else
    *out = std::make_shared<tensor_list>(*list);
  return core::status::ok();
}

core::tensor as_tensor(std::shared_ptr<const tensor_list> list) {
  return core::tensor::scalar<core::variant>(std::move(list));
}

core::status check_dtype(const tensor_list& list, core::dtype type) {
  if (list.element_dtype() != type)
    return core::invalid_argument_error(
      "the list holds ", core::to_string(list.element_dtype()),
      ", the op takes ", core::to_string(type));
  return core::status::ok();
}

core::status check_item(const tensor_list& list, const core::tensor& item) {
  ACTORFLOW_RETURN_IF_ERROR(check_dtype(list, item.dtype()));
  if (!list.element_shape().compatible_with(item.shape()))
    return core::invalid_argument_error(
      "an item of shape ", item.shape().to_string(),
      " does not fit the list's element shape ",
      list.element_shape().to_string());
  return core::status::ok();
}

/// Zeros of `type` and `shape`, which must be fully defined: what an item
/// never set reads as.
core::status zeros(core::dtype type, const core::shape& shape,
                   core::tensor* out) {
  if (!shape.fully_defined())
    return core::invalid_argument_error(
      "an item was never set and the element shape ", shape.to_string(),
      " is not fully defined, so its zeros cannot be made");
  core::tensor t{type, shape};
  if (type != core::dtype::string && type != core::dtype::variant
      && t.bytes() > 0)
    std::memset(t.raw_mutable_data(), 0, t.bytes());
  *out = std::move(t);
  return core::status::ok();
}

/// Copies the elements of `src` to `dst` at element offset `at`.
void copy_into(const core::tensor& src, core::tensor& dst, int64_t at) {
  auto n = src.num_elements();
  if (src.dtype() == core::dtype::string) {
    std::copy(src.data<std::string>(), src.data<std::string>() + n,
              dst.mutable_data<std::string>() + at);
  } else if (src.bytes() > 0) {
    std::memcpy(static_cast<char*>(dst.raw_mutable_data())
                  + at * static_cast<int64_t>(core::size_of(src.dtype())),
                src.raw_data(), src.bytes());
  }
}

/// Base of the kernels: the `element_dtype` attr.
class list_kernel : public cheap_kernel {
public:
  explicit list_kernel(kernel_construction& ctx) {
    type_ = ctx.attr_or("element_dtype", core::dtype::invalid);
  }

protected:
  core::dtype type_;
};

class reserve_kernel : public list_kernel {
public:
  explicit reserve_kernel(kernel_construction& ctx) : list_kernel(ctx) {
    // EmptyTensorList's max_num_elements is a bound, not a size.
    empty_ = ctx.node().op == "EmptyTensorList";
  }

  void compute(kernel_context& ctx) override {
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(0), &shape));
    const auto& n = ctx.input(1);
    ACTORFLOW_OP_REQUIRES(
      ctx, n.dtype() == core::dtype::int32 && n.shape().rank() == 0,
      core::invalid_argument_error("the number of elements is an int32 "
                                   "scalar"));
    auto count = empty_ ? 0 : n.scalar_value<int32_t>();
    ACTORFLOW_OP_REQUIRES(
      ctx, count >= 0,
      core::invalid_argument_error("a list of ", count, " elements"));
    auto list = std::make_shared<tensor_list>(type_, shape);
    list->items().resize(static_cast<size_t>(count));
    ctx.set_output(0, as_tensor(std::move(list)));
  }

private:
  bool empty_ = false;
};

class from_tensor_kernel : public list_kernel {
public:
  using list_kernel::list_kernel;

  void compute(kernel_context& ctx) override {
    const auto& t = ctx.input(0);
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(1), &shape));
    ACTORFLOW_OP_REQUIRES(ctx, t.shape().rank() >= 1,
                          core::invalid_argument_error(
                            "TensorListFromTensor needs a tensor of rank 1 or "
                            "more, got a scalar"));
    auto dims = t.shape().dims();
    auto n = dims.front();
    dims.erase(dims.begin());
    core::shape item_shape{dims};
    ACTORFLOW_OP_REQUIRES(
      ctx, shape.compatible_with(item_shape),
      core::invalid_argument_error("rows of shape ", item_shape.to_string(),
                                   " do not fit the element shape ",
                                   shape.to_string()));
    auto list = std::make_shared<tensor_list>(type_, shape);
    auto per = item_shape.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      core::tensor item{t.dtype(), item_shape};
      if (t.dtype() == core::dtype::string)
        std::copy(t.data<std::string>() + i * per,
                  t.data<std::string>() + (i + 1) * per,
                  item.mutable_data<std::string>());
      else if (item.bytes() > 0)
        std::memcpy(item.raw_mutable_data(),
                    static_cast<const char*>(t.raw_data()) + i * item.bytes(),
                    item.bytes());
      list->items().push_back(std::move(item));
    }
    ctx.set_output(0, as_tensor(std::move(list)));
  }
};

class set_item_kernel : public list_kernel {
public:
  explicit set_item_kernel(kernel_construction& ctx) : list_kernel(ctx) {
    resize_ = ctx.attr_or("resize_if_index_out_of_bounds", false);
  }

  void compute(kernel_context& ctx) override {
    std::shared_ptr<tensor_list> list;
    ACTORFLOW_OP_REQUIRES_OK(ctx, writable_list(ctx, &list));
    const auto& item = ctx.input(2);
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_item(*list, item));
    auto index = ctx.input(1).scalar_value<int32_t>();
    auto size = static_cast<int64_t>(list->items().size());
    if (resize_ && index >= size)
      list->items().resize(static_cast<size_t>(index) + 1);
    ACTORFLOW_OP_REQUIRES(
      ctx, index >= 0 && index < static_cast<int64_t>(list->items().size()),
      core::invalid_argument_error("index ", index, " is out of a list of ",
                                   size, " items"));
    list->items()[static_cast<size_t>(index)] = item;
    ctx.set_output(0, as_tensor(std::move(list)));
  }

private:
  bool resize_ = false;
};

class get_item_kernel : public list_kernel {
public:
  using list_kernel::list_kernel;

  void compute(kernel_context& ctx) override {
    const tensor_list* list = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, list_of(ctx, 0, &list));
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_dtype(*list, type_));
    auto index = ctx.input(1).scalar_value<int32_t>();
    auto size = static_cast<int64_t>(list->items().size());
    ACTORFLOW_OP_REQUIRES(ctx, index >= 0 && index < size,
                          core::invalid_argument_error("index ", index,
                                                       " is out of a list of ",
                                                       size, " items"));
    const auto& item = list->items()[static_cast<size_t>(index)];
    if (item.valid()) {
      ctx.set_output(0, item);
      return;
    }
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(2), &shape));
    core::tensor z;
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, zeros(type_, shape.merge(list->element_shape()), &z));
    ctx.set_output(0, std::move(z));
  }
};

class stack_kernel : public list_kernel {
public:
  using list_kernel::list_kernel;

  void compute(kernel_context& ctx) override {
    const tensor_list* list = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, list_of(ctx, 0, &list));
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_dtype(*list, type_));
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(1), &shape));
    ACTORFLOW_OP_REQUIRES(
      ctx, shape.compatible_with(list->element_shape()),
      core::invalid_argument_error("element shape ", shape.to_string(),
                                   " does not fit the list's ",
                                   list->element_shape().to_string()));
    shape = shape.merge(list->element_shape());
    for (const auto& item : list->items())
      if (item.valid()) {
        ACTORFLOW_OP_REQUIRES(ctx, shape.compatible_with(item.shape()),
                              core::invalid_argument_error(
                                "items of shapes ", shape.to_string(), " and ",
                                item.shape().to_string(), " do not stack"));
        shape = shape.merge(item.shape());
      }
    ACTORFLOW_OP_REQUIRES(
      ctx, shape.fully_defined(),
      core::invalid_argument_error("the items' shape ", shape.to_string(),
                                   " is not known: nothing to stack"));
    auto dims = shape.dims();
    auto n = static_cast<int64_t>(list->items().size());
    dims.insert(dims.begin(), n);
    core::tensor out{type_, core::shape{dims}};
    auto per = shape.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      const auto& item = list->items()[static_cast<size_t>(i)];
      if (item.valid()) {
        copy_into(item, out, i * per);
      } else {
        core::tensor z;
        ACTORFLOW_OP_REQUIRES_OK(ctx, zeros(type_, shape, &z));
        copy_into(z, out, i * per);
      }
    }
    ctx.set_output(0, std::move(out));
  }
};

class length_kernel : public cheap_kernel {
public:
  explicit length_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const tensor_list* list = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, list_of(ctx, 0, &list));
    ctx.set_output(
      0, core::tensor::scalar(static_cast<int32_t>(list->items().size())));
  }
};

class element_shape_kernel : public cheap_kernel {
public:
  explicit element_shape_kernel(kernel_construction& ctx) {
    type_ = ctx.attr_or("shape_type", core::dtype::int32);
  }

  void compute(kernel_context& ctx) override {
    const tensor_list* list = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, list_of(ctx, 0, &list));
    // A scalar -1 for an unknown rank, else the dimensions (-1: unknown).
    const auto& s = list->element_shape();
    auto dims = s.known_rank() ? s.dims() : std::vector<int64_t>{-1};
    core::tensor out{type_, s.known_rank()
                              ? core::shape{static_cast<int64_t>(dims.size())}
                              : core::shape{}};
    for (size_t i = 0; i < dims.size(); ++i)
      if (type_ == core::dtype::int32)
        out.mutable_data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
      else
        out.mutable_data<int64_t>()[i] = dims[i];
    ctx.set_output(0, std::move(out));
  }

private:
  core::dtype type_;
};

class push_back_kernel : public list_kernel {
public:
  using list_kernel::list_kernel;

  void compute(kernel_context& ctx) override {
    std::shared_ptr<tensor_list> list;
    ACTORFLOW_OP_REQUIRES_OK(ctx, writable_list(ctx, &list));
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_item(*list, ctx.input(1)));
    list->items().push_back(ctx.input(1));
    ctx.set_output(0, as_tensor(std::move(list)));
  }
};

class pop_back_kernel : public list_kernel {
public:
  using list_kernel::list_kernel;

  void compute(kernel_context& ctx) override {
    std::shared_ptr<tensor_list> list;
    ACTORFLOW_OP_REQUIRES_OK(ctx, writable_list(ctx, &list));
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_dtype(*list, type_));
    ACTORFLOW_OP_REQUIRES(
      ctx, !list->items().empty(),
      core::invalid_argument_error("popping from an empty list"));
    auto item = std::move(list->items().back());
    list->items().pop_back();
    if (!item.valid()) {
      core::shape shape;
      ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(1), &shape));
      ACTORFLOW_OP_REQUIRES_OK(
        ctx, zeros(type_, shape.merge(list->element_shape()), &item));
    }
    ctx.set_output(0, as_tensor(std::move(list)));
    ctx.set_output(1, std::move(item));
  }
};

} // namespace

void register_list_kernels(kernel_registry& r) {
  r.add_any<reserve_kernel>("TensorListReserve", device_type);
  r.add_any<reserve_kernel>("EmptyTensorList", device_type);
  r.add_any<from_tensor_kernel>("TensorListFromTensor", device_type);
  r.add_any<set_item_kernel>("TensorListSetItem", device_type);
  r.add_any<get_item_kernel>("TensorListGetItem", device_type);
  r.add_any<stack_kernel>("TensorListStack", device_type);
  r.add_any<length_kernel>("TensorListLength", device_type);
  r.add_any<element_shape_kernel>("TensorListElementShape", device_type);
  r.add_any<push_back_kernel>("TensorListPushBack", device_type);
  r.add_any<pop_back_kernel>("TensorListPopBack", device_type);
}

} // namespace actorflow::ops::cpu
