#include "actorflow/graph/tensor_array.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "builder_state.hpp"
#include "builder_util.hpp"
#include "sequence_loop.hpp"

namespace actorflow::graph {

namespace {

using detail::int32_scalar;

/// [0, n) as an int32 vector.
output indices_to(const scope& s, const output& n) {
  return range(s, int32_scalar(s, "start", 0), n, int32_scalar(s, "delta", 1));
}

} // namespace

tensor_array tensor_array::make(const scope& s, const output& size, options o) {
  auto outs = s.add_node("TensorArrayV3",
                         o.name.empty() ? "TensorArray" : o.name, {size},
                         {{"dtype", o.type},
                          {"element_shape", o.element_shape},
                          {"dynamic_size", o.dynamic_size},
                          {"clear_after_read", o.clear_after_read},
                          {"identical_element_shapes", o.infer_shape},
                          {"tensor_array_name", o.name}});
  if (outs.size() != 2)
    return {};
  auto t = wrap(outs[0], outs[1], o.type, o.element_shape);
  t.info_->infer_shape = o.infer_shape;
  return t;
}

tensor_array tensor_array::make(const scope& s, int64_t size, options o) {
  auto fixed = !o.dynamic_size;
  auto t = make(s, int32_scalar(s, "size", size), std::move(o));
  if (t.info_ && fixed)
    t.info_->size = size;
  return t;
}

tensor_array tensor_array::wrap(output handle, output flow, core::dtype type,
                                core::shape element_shape) {
  tensor_array t;
  t.handle_ = std::move(handle);
  t.flow_ = std::move(flow);
  t.info_ = std::make_shared<info>();
  t.info_->type = type;
  t.info_->element_shape = std::move(element_shape);
  return t;
}

core::shape tensor_array::element_shape() const {
  return info_ ? info_->element_shape : core::shape::unknown();
}

tensor_array tensor_array::with_flow(const output& flow) const {
  auto t = *this;
  t.flow_ = flow;
  return t;
}

void tensor_array::learn_shape(const scope& s,
                               const core::shape& element) const {
  if (!info_ || !info_->infer_shape)
    return;
  if (!info_->element_shape.compatible_with(element)) {
    s.record_error(core::invalid_argument_error(
      "TensorArray ", handle_.node_name(), ": an element of shape ",
      element.to_string(), " does not fit the element shape ",
      info_->element_shape.to_string(), " (every element has one shape)"));
    return;
  }
  info_->element_shape = info_->element_shape.merge(element);
}

output tensor_array::with_shape(const output& x, const core::shape& s) const {
  if (!x.valid() || !x.shape().compatible_with(s))
    return x;
  auto merged = x.shape().merge(s);
  auto& outs = x.state()->outputs[x.node_name()];
  if (static_cast<size_t>(x.port()) < outs.size())
    outs[static_cast<size_t>(x.port())].shape = merged;
  return output{x.state(), x.node_name(), x.port(),
                x.dtype(), merged,        x.is_ref()};
}

scope tensor_array::on(const scope& s) const {
  const auto* maker = s.graph_def().find(handle_.node_name());
  return s.with_device(maker != nullptr ? maker->device : std::string{});
}

output tensor_array::read(const scope& s, const output& index) const {
  auto v = detail::first(on(s).add_node("TensorArrayReadV3", "TensorArrayRead",
                                        {handle_, index, flow_},
                                        {{"dtype", dtype()}}));
  return with_shape(v, element_shape());
}

tensor_array tensor_array::write(const scope& s, const output& index,
                                 const output& value) const {
  learn_shape(s, value.shape());
  return with_flow(detail::first(
    on(s).add_node("TensorArrayWriteV3", "TensorArrayWrite",
                   {handle_, index, value, flow_}, {{"T", value.dtype()}})));
}

output tensor_array::gather(const scope& s, const output& indices) const {
  auto element = element_shape();
  auto v = detail::first(on(s).add_node(
    "TensorArrayGatherV3", "TensorArrayGather", {handle_, indices, flow_},
    {{"dtype", dtype()}, {"element_shape", element}}));
  if (!element.known_rank())
    return v;
  auto dims = element.dims();
  dims.insert(dims.begin(),
              indices.shape().rank() == 1 ? indices.shape().dim(0) : -1);
  return with_shape(v, core::shape{std::move(dims)});
}

output tensor_array::stack(const scope& s) const {
  auto at = s.sub("TensorArrayStack");
  auto n = info_ && info_->size >= 0 ? int32_scalar(at, "size", info_->size)
                                     : size(at);
  return gather(at, indices_to(at, n));
}

tensor_array tensor_array::scatter(const scope& s, const output& indices,
                                   const output& value) const {
  learn_shape(s, detail::row_shape(value.shape()));
  return with_flow(detail::first(
    on(s).add_node("TensorArrayScatterV3", "TensorArrayScatter",
                   {handle_, indices, value, flow_}, {{"T", value.dtype()}})));
}

tensor_array tensor_array::unstack(const scope& s, const output& value) const {
  auto at = s.sub("TensorArrayUnstack");
  return scatter(at, indices_to(at, detail::dim_of(at, value, 0)), value);
}

output tensor_array::concat(const scope& s) const {
  auto element = element_shape();
  return detail::first(
    on(s).add_node("TensorArrayConcatV3", "TensorArrayConcat", {handle_, flow_},
                   {{"dtype", dtype()},
                    {"element_shape_except0", detail::row_shape(element)}}));
}

tensor_array tensor_array::split(const scope& s, const output& value,
                                 const output& lengths) const {
  return with_flow(detail::first(
    on(s).add_node("TensorArraySplitV3", "TensorArraySplit",
                   {handle_, value, lengths, flow_}, {{"T", value.dtype()}})));
}

output tensor_array::size(const scope& s) const {
  return detail::first(on(s).add_node("TensorArraySizeV3", "TensorArraySize",
                                      {handle_, flow_}, {}));
}

operation tensor_array::close(const scope& s) const {
  return on(s).add_operation("TensorArrayCloseV3", "TensorArrayClose",
                             {handle_}, {});
}

tensor_array tensor_array::grad(const scope& s, const std::string& source,
                                const output& flow) const {
  auto outs = on(s).add_node("TensorArrayGradV3", "TensorArrayGrad",
                             {handle_, flow}, {{"source", source}});
  if (outs.size() != 2)
    return {};
  return wrap(outs[0], outs[1], dtype(), element_shape());
}

} // namespace actorflow::graph
