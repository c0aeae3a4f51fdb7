// Gradient functions of the TensorList ops, after TensorFlow's list_ops.py:
// a list's gradient is a list of its items' gradients, so each op's
// gradient is the list op that undoes it (a stack's is a list made from a
// tensor, a push's a pop, an item read's an item written into an empty
// list of the same length).

#include "../builder_util.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "grad_util.hpp"

namespace actorflow::graph::detail {

namespace {

using core::status;

/// The list op `op` on `inputs` with element_dtype `type` (and the
/// int32 shape_type where the op has one).
std::vector<output> list_op(const scope& s, const char* op,
                            const std::vector<output>& inputs, core::dtype type,
                            bool shaped = false) {
  core::attr_map attrs{{"element_dtype", type}};
  if (shaped)
    attrs.emplace("shape_type", core::dtype::int32);
  return s.add_node(op, op, inputs, std::move(attrs));
}

/// The shape of one row of `x`: its shape without the first dimension.
output row_shape(const scope& s, const output& x) {
  return slice(s, shape_of(s, x), {1}, {-1});
}

/// The element shape of `list`, int32.
output element_shape_of(const scope& s, const output& list) {
  return first(s.add_node("TensorListElementShape", "ElementShape", {list},
                          {{"shape_type", core::dtype::int32}}));
}

/// The number of items of `list`.
output length_of(const scope& s, const output& list) {
  return first(s.add_node("TensorListLength", "Length", {list}, {}));
}

/// A list of `like`'s length and element shape with no item set: what a
/// gradient written into some of its items starts from.
output empty_like(const scope& s, const output& like, core::dtype type) {
  return first(list_op(s, "TensorListReserve",
                       {element_shape_of(s, like), length_of(s, like)}, type,
                       true));
}

core::dtype element_type(const gradient_op& op) {
  return op.attr_or("element_dtype", core::dtype::invalid);
}

} // namespace

void register_list_gradients(gradient_registry& r) {
  // list = FromTensor(tensor, shape): the tensor's gradient is the list's
  // gradient stacked.
  r.add("TensorListFromTensor", [](const scope& s, const gradient_op& op,
                                   const std::vector<output>& g,
                                   std::vector<output>* in) {
    (*in)[0]
      = first(list_op(s, "TensorListStack", {g[0], row_shape(s, op.inputs[0])},
                      element_type(op)));
    return status::ok();
  });
  // tensor = Stack(list, shape): the list's gradient is the rows of the
  // tensor's.
  r.add("TensorListStack", [](const scope& s, const gradient_op& op,
                              const std::vector<output>& g,
                              std::vector<output>* in) {
    (*in)[0]
      = first(list_op(s, "TensorListFromTensor", {g[0], row_shape(s, g[0])},
                      element_type(op), true));
    return status::ok();
  });
  // item = GetItem(list, index, shape): the item's gradient at index of an
  // otherwise unset list.
  r.add("TensorListGetItem", [](const scope& s, const gradient_op& op,
                                const std::vector<output>& g,
                                std::vector<output>* in) {
    auto type = element_type(op);
    (*in)[0] = first(
      list_op(s, "TensorListSetItem",
              {empty_like(s, op.inputs[0], type), op.inputs[1], g[0]}, type));
    return status::ok();
  });
  // out = SetItem(list, index, item): the item's gradient is out's at
  // index; the list's is out's with that item zero.
  r.add("TensorListSetItem", [](const scope& s, const gradient_op& op,
                                const std::vector<output>& g,
                                std::vector<output>* in) {
    auto type = element_type(op);
    (*in)[2]
      = first(list_op(s, "TensorListGetItem",
                      {g[0], op.inputs[1], shape_of(s, op.inputs[2])}, type));
    (*in)[0]
      = first(list_op(s, "TensorListSetItem",
                      {g[0], op.inputs[1], zeros_like(s, op.inputs[2])}, type));
    return status::ok();
  });
  // out = PushBack(list, item): popping out's gradient gives both.
  r.add("TensorListPushBack", [](const scope& s, const gradient_op& op,
                                 const std::vector<output>& g,
                                 std::vector<output>* in) {
    auto popped = list_op(s, "TensorListPopBack",
                          {g[0], shape_of(s, op.inputs[1])}, element_type(op));
    if (popped.size() == 2) {
      (*in)[0] = popped[0];
      (*in)[1] = popped[1];
    }
    return status::ok();
  });
  // (out, item) = PopBack(list, shape): pushing the item's gradient back.
  r.add("TensorListPopBack", [](const scope& s, const gradient_op& op,
                                const std::vector<output>& g,
                                std::vector<output>* in) {
    (*in)[0]
      = first(list_op(s, "TensorListPushBack", {g[0], g[1]}, element_type(op)));
    return status::ok();
  });
  // values = Gather(list, indices, shape): the values' rows at indices of
  // an otherwise unset list.
  r.add("TensorListGather", [](const scope& s, const gradient_op& op,
                               const std::vector<output>& g,
                               std::vector<output>* in) {
    auto type = element_type(op);
    (*in)[0] = first(
      list_op(s, "TensorListScatterIntoExistingList",
              {empty_like(s, op.inputs[0], type), g[0], op.inputs[1]}, type));
    return status::ok();
  });
  // list = Scatter(tensor, indices, shape[, n]): the tensor's gradient is
  // the list's items at indices.
  auto scatter_grad = [](const scope& s, const gradient_op& op,
                         const std::vector<output>& g,
                         std::vector<output>* in) {
    (*in)[0] = first(list_op(s, "TensorListGather",
                             {g[0], op.inputs[1], row_shape(s, op.inputs[0])},
                             element_type(op)));
    return status::ok();
  };
  r.add("TensorListScatter", scatter_grad);
  r.add("TensorListScatterV2", scatter_grad);
  // out = ScatterIntoExistingList(list, tensor, indices): the tensor's
  // gradient is out's items at indices; the list's is out's with them
  // zero.
  r.add("TensorListScatterIntoExistingList", [](const scope& s,
                                                const gradient_op& op,
                                                const std::vector<output>& g,
                                                std::vector<output>* in) {
    auto type = element_type(op);
    (*in)[1]
      = first(list_op(s, "TensorListGather",
                      {g[0], op.inputs[2], row_shape(s, op.inputs[1])}, type));
    (*in)[0]
      = first(list_op(s, "TensorListScatterIntoExistingList",
                      {g[0], zeros_like(s, op.inputs[1]), op.inputs[2]}, type));
    return status::ok();
  });
  // (tensor, lengths) = ConcatV2(list, shape, leading_dims): the tensor's
  // gradient split at the lengths.
  r.add("TensorListConcatV2", [](const scope& s, const gradient_op& op,
                                 const std::vector<output>& g,
                                 std::vector<output>* in) {
    (*in)[0]
      = first(list_op(s, "TensorListSplit",
                      {g[0], element_shape_of(s, op.inputs[0]), op.outputs[1]},
                      element_type(op), true));
    return status::ok();
  });
  // list = Split(tensor, shape, lengths): the list's gradient concatenated.
  r.add("TensorListSplit", [](const scope& s, const gradient_op& op,
                              const std::vector<output>& g,
                              std::vector<output>* in) {
    auto shape
      = concat(s,
               {int_constant(s, "any", {-1}, false, core::dtype::int32),
                row_shape(s, op.inputs[0])},
               0);
    (*in)[0]
      = first(list_op(s, "TensorListConcatV2", {g[0], shape, op.inputs[2]},
                      element_type(op), true));
    return status::ok();
  });
  // out = Resize(list, size): out's gradient cut (or padded) back to the
  // list's length.
  r.add("TensorListResize",
        [](const scope& s, const gradient_op& op, const std::vector<output>& g,
           std::vector<output>* in) {
          (*in)[0] = first(s.add_node("TensorListResize", "TensorListResize",
                                      {g[0], length_of(s, op.inputs[0])}, {}));
          return status::ok();
        });
}

} // namespace actorflow::graph::detail
