#include "actorflow/graph/scope.hpp"

#include <utility>

#include "actorflow/graph/validate.hpp"
#include "actorflow/ops/registration.hpp"
#include "actorflow/ops/shape_context.hpp"
#include "builder_state.hpp"
#include "compile/type_check.hpp"
#include "flow_context.hpp"

namespace actorflow::graph {

scope::scope() : state_(std::make_shared<detail::builder_state>()) {
  state_->own_registry = std::make_unique<ops::op_registry>();
  state_->first_error = ops::register_ops(*state_->own_registry);
  state_->registry = state_->own_registry.get();
}

scope::scope(const ops::op_registry& registry)
  : state_(std::make_shared<detail::builder_state>()) {
  state_->registry = &registry;
}

scope::scope(std::shared_ptr<detail::builder_state> state, std::string prefix,
             std::string device, std::vector<std::string> deps,
             std::shared_ptr<detail::flow_context> flow, bool pinned)
  : state_(std::move(state)), prefix_(std::move(prefix)),
    device_(std::move(device)), control_deps_(std::move(deps)),
    flow_(std::move(flow)), pinned_(pinned) {
  // nop
}

scope detail::rebind(const scope& s, std::shared_ptr<builder_state> state) {
  auto copy = s;
  copy.state_ = std::move(state);
  return copy;
}

scope scope::sub(const std::string& prefix) const {
  auto name = prefix_.empty() ? prefix : prefix_ + "/" + prefix;
  return scope{state_, std::move(name), device_, control_deps_, flow_, pinned_};
}

scope scope::root() const {
  return scope{state_, "", device_, control_deps_, flow_, pinned_};
}

scope scope::without_control_dependencies() const {
  return scope{state_, prefix_, device_, {}, flow_, pinned_};
}

scope scope::with_device(const std::string& device) const {
  return scope{state_, prefix_, device, control_deps_, flow_, pinned_};
}

scope scope::with_control_dependencies(
  const std::vector<operation>& deps) const {
  auto all = control_deps_;
  for (const auto& d : deps)
    all.push_back(d.name);
  return scope{state_, prefix_, device_, std::move(all), flow_, pinned_};
}

scope scope::with_flow_context(
  std::shared_ptr<detail::flow_context> ctx) const {
  return scope{state_, prefix_, device_, control_deps_, std::move(ctx), true};
}

scope scope::in_current_region() const {
  return scope{state_, prefix_, device_, control_deps_, nullptr, false};
}

scope scope::current(const output& x) {
  const auto& st = x.state();
  if (st->current != nullptr)
    return *st->current;
  return scope{st, "", "", {}, nullptr, false};
}

const std::shared_ptr<detail::flow_context>&
scope::flow_context() const noexcept {
  return pinned_ ? flow_ : state_->region;
}

const core::status& scope::status() const {
  return state_->first_error;
}

void scope::record_error(core::status st) const {
  if (state_->first_error.is_ok())
    state_->first_error = std::move(st);
}

const ops::op_registry& scope::ops() const noexcept {
  return *state_->registry;
}

core::status scope::take_error() const {
  return std::exchange(state_->first_error, core::status::ok());
}

const graph& scope::graph_def() const {
  return state_->g;
}

std::string scope::unique_name(const std::string& hint) const {
  if (hint.empty())
    return state_->g.unique_name(prefix_.empty() ? "node" : prefix_);
  return state_->g.unique_name(prefix_.empty() ? hint : prefix_ + "/" + hint);
}

std::string scope::unique_frame_name(const std::string& hint) const {
  auto base = prefix_.empty() ? hint : prefix_ + "/" + hint;
  auto name = base;
  for (int i = 1; state_->frame_names.count(name) != 0; ++i)
    name = base + "_" + std::to_string(i);
  state_->frame_names.insert(name);
  return name;
}

output scope::output_of(const std::string& node, int port) const {
  auto it = state_->outputs.find(node);
  if (it == state_->outputs.end() || port < 0
      || port >= static_cast<int>(it->second.size())) {
    record_error(core::not_found_error("no output ", port, " of a node named '",
                                       node, "' was built in this graph"));
    return {};
  }
  const auto& info = it->second[static_cast<size_t>(port)];
  return output{state_,         node,       port,
                info.type.type, info.shape, info.type.is_ref};
}

int scope::num_outputs(const std::string& node) const {
  auto it = state_->outputs.find(node);
  return it == state_->outputs.end() ? 0 : static_cast<int>(it->second.size());
}

void scope::add_initializer(const operation& op) const {
  state_->initializers.push_back(op.name);
}

operation scope::initializer() const {
  std::vector<operation> deps;
  for (const auto& name : state_->initializers)
    deps.push_back(operation{name});
  return with_control_dependencies(deps).add_operation("NoOp", "init", {}, {});
}

gradient_registry& scope::gradients() const {
  if (state_->gradients == nullptr)
    state_->gradients
      = std::make_unique<gradient_registry>(gradient_registry::with_builtins());
  return *state_->gradients;
}

std::vector<output> scope::add_node(const std::string& op,
                                    const std::string& hint,
                                    const std::vector<output>& inputs,
                                    core::attr_map attrs) const {
  std::vector<output> outs;
  add(op, hint, inputs, std::move(attrs), &outs);
  return outs;
}

operation scope::add_operation(const std::string& op, const std::string& hint,
                               const std::vector<output>& inputs,
                               core::attr_map attrs) const {
  std::vector<output> outs;
  return operation{add(op, hint, inputs, std::move(attrs), &outs)};
}

std::string scope::add(const std::string& op_name, const std::string& hint,
                       const std::vector<output>& given, core::attr_map attrs,
                       std::vector<output>* outs) const {
  auto& st = *state_;
  if (!st.first_error.is_ok())
    return {};
  for (const auto& in : given)
    if (!in.valid() || in.state() != state_) {
      st.first_error = core::invalid_argument_error(
        "an input of a new ", op_name,
        " node is invalid or from another graph");
      return {};
    }
  // Inside a cond branch or a loop body, inputs from outside come in
  // through the region's Switch or Enter.
  auto inputs = given;
  auto deps = control_deps_;
  // A copy: a capture may build in other regions.
  auto region = flow_context();
  if (region) {
    for (auto& in : inputs)
      if (!region->contains(in.node_name())) {
        in = region->capture(in, device_);
        if (!st.first_error.is_ok())
          return {};
      }
    // A node with no input that changes per iteration (or branch) runs
    // after the pivot, so it runs once per iteration (or dies with its
    // branch).
    bool anchored = false;
    for (const auto& in : inputs)
      anchored = anchored || !region->is_invariant(in.node_name());
    if (!anchored)
      deps.push_back(region->pivot());
  }
  core::node_def node;
  node.name = unique_name(hint.empty() && prefix_.empty() ? op_name : hint);
  node.op = op_name;
  node.device = device_;
  node.attrs = std::move(attrs);
  for (const auto& in : inputs)
    node.inputs.push_back(in.name());
  for (const auto& dep : deps)
    node.inputs.push_back("^" + dep);
  auto fail = [&](core::status err) {
    st.first_error = err.with_context(node.name, node.op);
    return std::string{};
  };
  const auto* op = st.registry->find(op_name);
  if (op == nullptr)
    return fail(core::not_found_error("unknown op '", op_name, "'"));
  ACTORFLOW_RETURN_IF_ERROR_OR(op->check_attrs(node.attrs), fail);
  std::vector<ops::arg_type> in_types, out_types;
  ACTORFLOW_RETURN_IF_ERROR_OR(
    op->resolve_types(node.attrs, &in_types, &out_types), fail);
  if (in_types.size() != inputs.size())
    return fail(core::invalid_argument_error(
      op_name, " takes ", in_types.size(), " inputs, got ", inputs.size()));
  std::vector<core::shape> in_shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ACTORFLOW_RETURN_IF_ERROR_OR(
      check_edge(node, i, inputs[i].name(), in_types[i],
                 ops::arg_type{inputs[i].dtype(), inputs[i].is_ref()}),
      fail);
    in_shapes.push_back(inputs[i].shape());
  }
  ops::shape_context shapes{node, std::move(in_shapes), out_types.size()};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto* src = st.g.find(inputs[i].node_name());
    if (src != nullptr && src->op == "Const")
      if (auto v = src->attrs.find("value"); v != src->attrs.end())
        if (const auto* t = std::get_if<core::tensor>(&v->second))
          shapes.set_input_tensor(i, *t);
  }
  if (op->shape_function)
    ACTORFLOW_RETURN_IF_ERROR_OR(op->shape_function(shapes), fail);
  auto name = node.name;
  ACTORFLOW_RETURN_IF_ERROR_OR(st.g.add(std::move(node)), fail);
  if (region)
    region->add_member(name);
  auto& infos = st.outputs[name];
  for (size_t i = 0; i < out_types.size(); ++i)
    infos.push_back({out_types[i], shapes.outputs()[i]});
  for (size_t i = 0; i < out_types.size(); ++i)
    outs->emplace_back(state_, name, static_cast<int>(i), out_types[i].type,
                       shapes.outputs()[i], out_types[i].is_ref);
  return name;
}

} // namespace actorflow::graph
