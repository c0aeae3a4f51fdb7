// TensorList kernels: a list is the value of a scalar variant tensor; the
// ops that change one copy it (sharing the items' buffers) unless they hold
// the only reference, as TensorFlow's do.

#include "list_common.hpp"

#include <functional>

namespace actorflow::ops::cpu {

namespace {

using namespace lists;

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
    for (int64_t i = 0; i < n; ++i)
      list->items().push_back(item_of(t, i));
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
    ACTORFLOW_OP_REQUIRES_OK(ctx, typed_list(ctx, &list));
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
    ACTORFLOW_OP_REQUIRES_OK(ctx, typed_list(ctx, &list));
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(1), &shape));
    std::vector<int64_t> all(list->items().size());
    for (size_t i = 0; i < all.size(); ++i)
      all[i] = static_cast<int64_t>(i);
    core::tensor out;
    ACTORFLOW_OP_REQUIRES_OK(ctx, stack_items(*list, all, shape, type_, &out));
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
  explicit element_shape_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const tensor_list* list = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, list_of(ctx, 0, &list));
    // A scalar -1 for an unknown rank, else the dimensions (-1: unknown).
    const auto& s = list->element_shape();
    if (s.known_rank())
      emit_ints(ctx, s.dims(), false);
    else
      emit_ints(ctx, {-1}, true);
  }
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

/// ZerosLike of a list (TensorFlow's TensorListZerosLike, what a loop's
/// gradient starts a list's from): a list of the same length whose set
/// items are zeros of their shapes; unset items stay unset.
class zeros_like_kernel : public cheap_kernel {
public:
  explicit zeros_like_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const tensor_list* list = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, list_of(ctx, 0, &list));
    auto out = std::make_shared<tensor_list>(list->element_dtype(),
                                             list->element_shape());
    out->items().resize(list->items().size());
    for (size_t i = 0; i < list->items().size(); ++i) {
      const auto& item = list->items()[i];
      if (item.valid())
        ACTORFLOW_OP_REQUIRES_OK(
          ctx, zeros(item.dtype(), item.shape(), &out->items()[i]));
    }
    ctx.set_output(0, as_tensor(std::move(out)));
  }
};

/// `a` + `b`, two tensors of one dtype and shape.
core::status add_items(const core::tensor& a, const core::tensor& b,
                       core::tensor* out) {
  if (a.shape() != b.shape())
    return core::invalid_argument_error("items of shapes ",
                                        a.shape().to_string(), " and ",
                                        b.shape().to_string(), " do not add");
  core::tensor sum{a.dtype(), a.shape()};
  bool added = false;
  core::visit_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, std::string>) {
      std::transform(a.data<T>(), a.data<T>() + a.num_elements(), b.data<T>(),
                     sum.mutable_data<T>(), std::plus<T>{});
      added = true;
    }
  });
  if (!added)
    return core::invalid_argument_error("items of ", core::to_string(a.dtype()),
                                        " do not add");
  *out = std::move(sum);
  return core::status::ok();
}

/// AddN of lists (TensorFlow's TensorListBinaryAdd, folded over the
/// inputs): lists of one length and element dtype added item by item; an
/// item unset in one list is the other's.
class add_n_kernel : public cheap_kernel {
public:
  explicit add_n_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const tensor_list* first = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, list_of(ctx, 0, &first));
    auto sum = std::make_shared<tensor_list>(*first);
    for (size_t k = 1; k < ctx.num_inputs(); ++k) {
      const tensor_list* list = nullptr;
      ACTORFLOW_OP_REQUIRES_OK(ctx, list_of(ctx, k, &list));
      ACTORFLOW_OP_REQUIRES_OK(ctx, check_dtype(*list, sum->element_dtype()));
      ACTORFLOW_OP_REQUIRES(ctx, list->items().size() == sum->items().size(),
                            core::invalid_argument_error(
                              "lists of ", sum->items().size(), " and ",
                              list->items().size(), " items do not add"));
      for (size_t i = 0; i < list->items().size(); ++i) {
        auto& into = sum->items()[i];
        const auto& item = list->items()[i];
        if (!item.valid())
          continue;
        if (!into.valid())
          into = item;
        else
          ACTORFLOW_OP_REQUIRES_OK(ctx, add_items(into, item, &into));
      }
    }
    ctx.set_output(0, as_tensor(std::move(sum)));
  }
};

} // namespace

void register_list_kernels(kernel_registry& r) {
  // ZerosLike and AddN of variant tensors: what a TF2 loop's gradient
  // does with the lists it carries.
  r.add("ZerosLike", device_type, core::dtype::variant,
        &kernel_registry::make_kernel<zeros_like_kernel>);
  r.add("AddN", device_type, core::dtype::variant,
        &kernel_registry::make_kernel<add_n_kernel>);
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
  register_list_bulk_kernels(r);
}

} // namespace actorflow::ops::cpu
