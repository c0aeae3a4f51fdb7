#pragma once

// Internal: what the TensorList kernels share -- reading a list from an
// input, copying it for a change, element shapes given as tensors, zeros
// for items never set.

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "actorflow/ops/tensor_list.hpp"
#include "kernels.hpp"

namespace actorflow::ops::cpu::lists {

/// A shape given as a tensor: int32 or int64, -1 for an unknown dimension,
/// a scalar -1 for an unknown rank.
inline core::status shape_of(const core::tensor& t, core::shape* out) {
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
inline core::status list_of(const kernel_context& ctx, size_t i,
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
inline core::status writable_list(const kernel_context& ctx,
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

inline core::tensor as_tensor(std::shared_ptr<const tensor_list> list) {
  return core::tensor::scalar<core::variant>(std::move(list));
}

inline core::status check_dtype(const tensor_list& list, core::dtype type) {
  if (list.element_dtype() != type)
    return core::invalid_argument_error(
      "the list holds ", core::to_string(list.element_dtype()),
      ", the op takes ", core::to_string(type));
  return core::status::ok();
}

inline core::status check_item(const tensor_list& list,
                               const core::tensor& item) {
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
inline core::status zeros(core::dtype type, const core::shape& shape,
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
inline void copy_into(const core::tensor& src, core::tensor& dst, int64_t at) {
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

/// Rows [first, first + count) of `t` as a tensor of their own.
inline core::tensor rows_of(const core::tensor& t, int64_t first,
                            int64_t count) {
  auto dims = t.shape().dims();
  auto per = t.shape().num_elements() / std::max<int64_t>(dims.front(), 1);
  dims.front() = count;
  core::tensor out{t.dtype(), core::shape{dims}};
  if (t.dtype() == core::dtype::string)
    std::copy_n(t.data<std::string>() + first * per, count * per,
                out.mutable_data<std::string>());
  else if (out.bytes() > 0)
    std::memcpy(out.raw_mutable_data(),
                static_cast<const char*>(t.raw_data())
                  + first * per
                      * static_cast<int64_t>(core::size_of(t.dtype())),
                out.bytes());
  return out;
}

/// Row `i` of `t` without its first dimension: one list item.
inline core::tensor item_of(const core::tensor& t, int64_t i) {
  auto row = rows_of(t, i, 1);
  auto dims = t.shape().dims();
  dims.erase(dims.begin());
  core::tensor item;
  // Same elements, so the reshape cannot fail.
  (void)row.reshaped(core::shape{dims}, &item);
  return item;
}

/// Items `indices` of `list` stacked along a new first dimension, of
/// `type`: `shape` (the op's element shape) merged with the list's and
/// the items' must be fully defined; an item never set reads as zeros.
inline core::status stack_items(const tensor_list& list,
                                const std::vector<int64_t>& indices,
                                core::shape shape, core::dtype type,
                                core::tensor* out) {
  if (!shape.compatible_with(list.element_shape()))
    return core::invalid_argument_error("element shape ", shape.to_string(),
                                        " does not fit the list's ",
                                        list.element_shape().to_string());
  shape = shape.merge(list.element_shape());
  auto size = static_cast<int64_t>(list.items().size());
  for (auto i : indices) {
    if (i < 0 || i >= size)
      return core::invalid_argument_error("index ", i, " is out of a list of ",
                                          size, " items");
    const auto& item = list.items()[static_cast<size_t>(i)];
    if (!item.valid())
      continue;
    if (!shape.compatible_with(item.shape()))
      return core::invalid_argument_error("items of shapes ", shape.to_string(),
                                          " and ", item.shape().to_string(),
                                          " do not stack");
    shape = shape.merge(item.shape());
  }
  if (!shape.fully_defined())
    return core::invalid_argument_error("the items' shape ", shape.to_string(),
                                        " is not known: nothing to stack");
  auto dims = shape.dims();
  dims.insert(dims.begin(), static_cast<int64_t>(indices.size()));
  core::tensor result{type, core::shape{dims}};
  auto per = shape.num_elements();
  core::tensor zero;
  for (size_t k = 0; k < indices.size(); ++k) {
    const auto& item = list.items()[static_cast<size_t>(indices[k])];
    if (!item.valid() && !zero.valid())
      ACTORFLOW_RETURN_IF_ERROR(zeros(type, shape, &zero));
    copy_into(item.valid() ? item : zero, result,
              static_cast<int64_t>(k) * per);
  }
  *out = std::move(result);
  return core::status::ok();
}

/// Base of the kernels: the `element_dtype` attr.
class list_kernel : public cheap_kernel {
public:
  explicit list_kernel(kernel_construction& ctx) {
    type_ = ctx.attr_or("element_dtype", core::dtype::invalid);
  }

protected:
  /// The list in input 0, which must hold `element_dtype` items.
  core::status typed_list(const kernel_context& ctx,
                          const tensor_list** out) const {
    ACTORFLOW_RETURN_IF_ERROR(list_of(ctx, 0, out));
    return check_dtype(**out, type_);
  }

  core::dtype type_;
};

} // namespace actorflow::ops::cpu::lists
