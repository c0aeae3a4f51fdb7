// TensorList kernels that move many items at once: Gather, Scatter (into
// a new list or an existing one), ConcatV2, Split and Resize, with
// TensorFlow's semantics.

#include "list_common.hpp"

#include <algorithm>
#include <numeric>

namespace actorflow::ops::cpu {

namespace {

using namespace lists;

/// The integers of vector input `i` (int32 or int64).
core::status vector_input(const kernel_context& ctx, size_t i, const char* what,
                          std::vector<int64_t>* out) {
  const auto& t = ctx.input(i);
  if (t.shape().rank() != 1
      || (t.dtype() != core::dtype::int32 && t.dtype() != core::dtype::int64))
    return core::invalid_argument_error(
      what, " must be an integer vector, got ", core::to_string(t.dtype()), " ",
      t.shape().to_string());
  *out = read_ints(t);
  return core::status::ok();
}

/// The shape of `t`'s rows, and that `t` has rows.
core::status row_shape(const core::tensor& t, core::shape* out) {
  if (t.shape().rank() < 1)
    return core::invalid_argument_error(
      "a tensor of rank 1 or more is needed, got a scalar");
  auto dims = t.shape().dims();
  dims.erase(dims.begin());
  *out = core::shape{dims};
  return core::status::ok();
}

/// Writes row k of `values` into item indices[k] of `list`, which must
/// hold every index; a later index of the same item wins.
void scatter_rows(const core::tensor& values,
                  const std::vector<int64_t>& indices, tensor_list& list) {
  for (size_t k = 0; k < indices.size(); ++k)
    list.items()[static_cast<size_t>(indices[k])]
      = item_of(values, static_cast<int64_t>(k));
}

/// Checks `values` against the indices scattered from it and the list's
/// element shape.
core::status check_scatter(const core::tensor& values,
                           const std::vector<int64_t>& indices,
                           const core::shape& element_shape) {
  core::shape rows;
  ACTORFLOW_RETURN_IF_ERROR(row_shape(values, &rows));
  if (static_cast<int64_t>(indices.size()) != values.shape().dim(0))
    return core::invalid_argument_error(indices.size(),
                                        " indices for a tensor of ",
                                        values.shape().dim(0), " rows");
  if (!element_shape.compatible_with(rows))
    return core::invalid_argument_error("rows of shape ", rows.to_string(),
                                        " do not fit the element shape ",
                                        element_shape.to_string());
  for (auto i : indices)
    if (i < 0)
      return core::invalid_argument_error("a negative index: ", i);
  return core::status::ok();
}

int64_t max_index(const std::vector<int64_t>& indices) {
  return indices.empty() ? -1
                         : *std::max_element(indices.begin(), indices.end());
}

class gather_kernel : public list_kernel {
public:
  using list_kernel::list_kernel;

  void compute(kernel_context& ctx) override {
    const tensor_list* list = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, typed_list(ctx, &list));
    std::vector<int64_t> indices;
    ACTORFLOW_OP_REQUIRES_OK(ctx, vector_input(ctx, 1, "indices", &indices));
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(2), &shape));
    core::tensor out;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             stack_items(*list, indices, shape, type_, &out));
    ctx.set_output(0, std::move(out));
  }
};

/// TensorListScatter and TensorListScatterV2: a new list of
/// max(num_elements, highest index + 1) items (num_elements -1: the
/// highest index + 1), row k of the tensor at indices[k].
class scatter_kernel : public cheap_kernel {
public:
  explicit scatter_kernel(kernel_construction& ctx) {
    sized_ = ctx.node().op == "TensorListScatterV2";
  }

  void compute(kernel_context& ctx) override {
    const auto& values = ctx.input(0);
    std::vector<int64_t> indices;
    ACTORFLOW_OP_REQUIRES_OK(ctx, vector_input(ctx, 1, "indices", &indices));
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(2), &shape));
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_scatter(values, indices, shape));
    int64_t size = -1;
    if (sized_)
      size = ctx.input(3).scalar_value<int32_t>();
    ACTORFLOW_OP_REQUIRES(ctx, size >= -1,
                          core::invalid_argument_error(
                            "num_elements must be -1 or more, got ", size));
    ACTORFLOW_OP_REQUIRES(
      ctx, size == -1 || max_index(indices) < size,
      core::invalid_argument_error("index ", max_index(indices),
                                   " is out of a list of ", size, " items"));
    auto list = std::make_shared<tensor_list>(values.dtype(), shape);
    list->items().resize(
      static_cast<size_t>(std::max(max_index(indices) + 1, size)));
    scatter_rows(values, indices, *list);
    ctx.set_output(0, as_tensor(std::move(list)));
  }

private:
  bool sized_ = false;
};

/// Rows of a tensor into an existing list, grown to hold every index.
class scatter_into_kernel : public cheap_kernel {
public:
  explicit scatter_into_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    std::shared_ptr<tensor_list> list;
    ACTORFLOW_OP_REQUIRES_OK(ctx, writable_list(ctx, &list));
    const auto& values = ctx.input(1);
    ACTORFLOW_OP_REQUIRES_OK(ctx, check_dtype(*list, values.dtype()));
    std::vector<int64_t> indices;
    ACTORFLOW_OP_REQUIRES_OK(ctx, vector_input(ctx, 2, "indices", &indices));
    ACTORFLOW_OP_REQUIRES_OK(
      ctx, check_scatter(values, indices, list->element_shape()));
    auto needed = static_cast<size_t>(max_index(indices) + 1);
    if (needed > list->items().size())
      list->items().resize(needed);
    scatter_rows(values, indices, *list);
    ctx.set_output(0, as_tensor(std::move(list)));
  }
};

/// TensorListConcatV2: the items joined along their first dimension, and
/// each item's rows. An item never set counts leading_dims[i] rows of
/// zeros (then the element shape past its first dimension must be known).
class concat_kernel : public list_kernel {
public:
  using list_kernel::list_kernel;

  void compute(kernel_context& ctx) override {
    const tensor_list* list = nullptr;
    ACTORFLOW_OP_REQUIRES_OK(ctx, typed_list(ctx, &list));
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(1), &shape));
    std::vector<int64_t> leading;
    ACTORFLOW_OP_REQUIRES_OK(ctx,
                             vector_input(ctx, 2, "leading_dims", &leading));
    ACTORFLOW_OP_REQUIRES(
      ctx, shape.compatible_with(list->element_shape()),
      core::invalid_argument_error("element shape ", shape.to_string(),
                                   " does not fit the list's ",
                                   list->element_shape().to_string()));
    shape = shape.merge(list->element_shape());
    ACTORFLOW_OP_REQUIRES(
      ctx, !shape.known_rank() || shape.rank() >= 1,
      core::invalid_argument_error("TensorListConcat needs items of rank 1 "
                                   "or more, the element shape is a scalar"));
    // The items' shape past the first dimension, from the element shape
    // and every item set.
    auto rest = shape.known_rank() ? core::shape{std::vector<int64_t>(
                  shape.dims().begin() + 1, shape.dims().end())}
                                   : core::shape::unknown();
    const auto& items = list->items();
    std::vector<int64_t> lengths(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i].valid()) {
        ACTORFLOW_OP_REQUIRES(
          ctx, i < leading.size(),
          core::invalid_argument_error(
            "item ", i,
            " was never set and leading_dims gives no size for "
            "it"));
        lengths[i] = leading[i];
        continue;
      }
      core::shape item_rest;
      ACTORFLOW_OP_REQUIRES_OK(ctx, row_shape(items[i], &item_rest));
      ACTORFLOW_OP_REQUIRES(
        ctx, rest.compatible_with(item_rest),
        core::invalid_argument_error("items of shapes ", rest.to_string(),
                                     " and ", item_rest.to_string(),
                                     " past their first dimension do not "
                                     "concatenate"));
      rest = rest.merge(item_rest);
      lengths[i] = items[i].shape().dim(0);
    }
    ACTORFLOW_OP_REQUIRES(
      ctx, rest.fully_defined(),
      core::invalid_argument_error("the items' shape past their first "
                                   "dimension, ",
                                   rest.to_string(), ", is not known"));
    auto dims = rest.dims();
    dims.insert(dims.begin(),
                std::accumulate(lengths.begin(), lengths.end(), int64_t{0}));
    core::tensor out{type_, core::shape{dims}};
    auto per = rest.num_elements();
    int64_t at = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].valid()) {
        copy_into(items[i], out, at);
      } else {
        auto zero_dims = rest.dims();
        zero_dims.insert(zero_dims.begin(), lengths[i]);
        core::tensor z;
        ACTORFLOW_OP_REQUIRES_OK(ctx, zeros(type_, core::shape{zero_dims}, &z));
        copy_into(z, out, at);
      }
      at += lengths[i] * per;
    }
    core::tensor sizes{core::dtype::int64,
                       core::shape{static_cast<int64_t>(lengths.size())}};
    std::copy(lengths.begin(), lengths.end(), sizes.mutable_data<int64_t>());
    ctx.set_output(0, std::move(out));
    ctx.set_output(1, std::move(sizes));
  }
};

/// TensorListSplit: a tensor's rows cut into items of `lengths` rows.
class split_kernel : public cheap_kernel {
public:
  explicit split_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    const auto& t = ctx.input(0);
    core::shape shape;
    ACTORFLOW_OP_REQUIRES_OK(ctx, shape_of(ctx.input(1), &shape));
    std::vector<int64_t> lengths;
    ACTORFLOW_OP_REQUIRES_OK(ctx, vector_input(ctx, 2, "lengths", &lengths));
    core::shape rows;
    ACTORFLOW_OP_REQUIRES_OK(ctx, row_shape(t, &rows));
    ACTORFLOW_OP_REQUIRES(
      ctx, !shape.known_rank() || shape.rank() >= 1,
      core::invalid_argument_error("TensorListSplit needs an element shape "
                                   "of rank 1 or more, got ",
                                   shape.to_string()));
    if (shape.known_rank()) {
      core::shape rest{
        std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end())};
      ACTORFLOW_OP_REQUIRES(ctx, rest.compatible_with(rows),
                            core::invalid_argument_error(
                              "a tensor of shape ", t.shape().to_string(),
                              " does not fit the element shape ",
                              shape.to_string()));
    }
    auto list = std::make_shared<tensor_list>(t.dtype(), shape);
    int64_t start = 0;
    for (auto n : lengths) {
      ACTORFLOW_OP_REQUIRES(ctx, n >= 0 && start + n <= t.shape().dim(0),
                            core::invalid_argument_error(
                              "lengths ", core::shape{lengths}.to_string(),
                              " do not cut a tensor of ", t.shape().dim(0),
                              " rows"));
      list->items().push_back(rows_of(t, start, n));
      start += n;
    }
    ACTORFLOW_OP_REQUIRES(
      ctx, start == t.shape().dim(0),
      core::invalid_argument_error("lengths ", core::shape{lengths}.to_string(),
                                   " leave rows of a tensor of ",
                                   t.shape().dim(0), " unused"));
    ctx.set_output(0, as_tensor(std::move(list)));
  }
};

/// TensorListResize: truncated, or grown with items never set.
class resize_kernel : public cheap_kernel {
public:
  explicit resize_kernel(kernel_construction&) {
    // nop
  }

  void compute(kernel_context& ctx) override {
    std::shared_ptr<tensor_list> list;
    ACTORFLOW_OP_REQUIRES_OK(ctx, writable_list(ctx, &list));
    auto size = ctx.input(1).scalar_value<int32_t>();
    ACTORFLOW_OP_REQUIRES(
      ctx, size >= 0,
      core::invalid_argument_error("a list cannot have ", size, " items"));
    list->items().resize(static_cast<size_t>(size));
    ctx.set_output(0, as_tensor(std::move(list)));
  }
};

} // namespace

void register_list_bulk_kernels(kernel_registry& r) {
  r.add_any<gather_kernel>("TensorListGather", device_type);
  r.add_any<scatter_kernel>("TensorListScatter", device_type);
  r.add_any<scatter_kernel>("TensorListScatterV2", device_type);
  r.add_any<scatter_into_kernel>("TensorListScatterIntoExistingList",
                                 device_type);
  r.add_any<concat_kernel>("TensorListConcatV2", device_type);
  r.add_any<split_kernel>("TensorListSplit", device_type);
  r.add_any<resize_kernel>("TensorListResize", device_type);
}

} // namespace actorflow::ops::cpu
