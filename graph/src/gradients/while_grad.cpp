#include "while_grad.hpp"

#include "../builder_state.hpp"
#include "../builder_util.hpp"
#include "../loop_context.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"

namespace actorflow::graph::detail {

namespace {

/// The tensor a node takes as data input `i`.
output input_of(const scope& s, const std::string& node, size_t i) {
  core::input_ref ref;
  const auto* def = s.graph_def().find(node);
  if (def == nullptr || def->inputs.size() <= i
      || !core::input_ref::parse(def->inputs[i], &ref))
    return {};
  return s.output_of(ref.node, ref.port);
}

/// Fails for what the loop gradient does not handle yet: a cond inside the
/// loop (its pushes would need guarding by the saved predicate).
core::status check_supported(const scope& s, const loop_record& loop) {
  for (const auto& node : s.graph_def().nodes())
    if ((node.op == "Switch" || node.op == "RefSwitch")
        && loop.body->contains(node.name)
        && std::find(loop.switches.begin(), loop.switches.end(), node.name)
             == loop.switches.end()) {
      core::input_ref ref;
      const core::node_def* pred = nullptr;
      if (node.inputs.size() > 1
          && core::input_ref::parse(node.inputs[1], &ref))
        pred = s.graph_def().find(ref.node);
      if (pred == nullptr || pred->op != "LoopCond")
        return core::unimplemented_error(
          "the gradient of a while loop whose body holds a cond is not built "
          "yet (",
          node.name, ")");
    }
  return core::status::ok();
}

} // namespace

core::status loop_gradient(const scope& s, const loop_record& loop,
                           const std::vector<output>& exit_grads,
                           std::vector<std::pair<output, output>>* sources) {
  ACTORFLOW_RETURN_IF_ERROR(check_supported(s, loop));
  const auto& outer = loop.loop->outer;
  auto fwd = outer.sub("grad_acc").with_flow_context(loop.body);
  auto pivot = s.output_of(loop.pivot);
  auto int64 = core::dtype::int64;
  // The forward counter, n = 0; while pivot: n += 1. Its NextIteration
  // waits for the iteration's pushes, so pushes happen in iteration order
  // and its Exit comes after the last one.
  auto counter = outer.sub("grad_counter");
  auto c_enter = first(counter.add_node(
    "Enter", "Enter", {constant(counter, 0.0, int64)},
    {{"T", int64},
     {"frame_name", loop.loop->frame},
     {"is_constant", false},
     {"parallel_iterations", loop.loop->parallel_iterations}}));
  auto c_merge = first(counter.add_node("Merge", "Merge", {c_enter, c_enter},
                                        {{"T", int64}, {"N", int64_t{2}}}));
  auto c_switch
    = counter.add_node("Switch", "Switch", {c_merge, pivot}, {{"T", int64}});
  if (c_switch.size() != 2)
    return s.status();
  auto c_exit
    = first(counter.add_node("Exit", "Exit", {c_switch[0]}, {{"T", int64}}));
  auto c_add
    = first(counter.add_node("Add", "Add",
                             {identity(counter, c_switch[1]),
                              constant(fwd.sub("grad_counter"), 1.0, int64)},
                             {{"T", int64}}));
  if (!s.ok())
    return s.status();
  // What the backward body reads of the forward loop: loop constants from
  // outside enter it directly; values of the forward frame come through a
  // stack, pushed in each forward iteration and popped in reverse.
  auto invariants = loop.loop->invariants; // before the stacks add theirs
  auto is_invariant = [&](const std::string& name) {
    return std::find(invariants.begin(), invariants.end(), name)
           != invariants.end();
  };
  std::vector<operation> pushes;
  std::optional<scope> backward;
  auto source = [&](const output& x, bool* inside) -> output {
    if (is_invariant(x.node_name()))
      return input_of(s, x.node_name(), 0);
    if (!loop.contains(x.node_name()) || !backward)
      return {};
    auto base = x.dtype();
    auto stack
      = first(outer.sub("grad_acc")
                .add_node("StackV2", "StackV2",
                          {int_constant(outer.sub("grad_acc"), "max_size", {-1},
                                        true, core::dtype::int32)},
                          {{"elem_type", base}, {"stack_name", x.name()}}));
    auto push = first(
      fwd.with_control_dependencies({c_add.op()})
        .add_node("StackPushV2", "StackPushV2", {stack, x}, {{"T", base}}));
    if (!push.valid())
      return {};
    pushes.push_back(push.op());
    *inside = true;
    return first(backward->add_node("StackPopV2", "StackPopV2", {stack},
                                    {{"elem_type", base}}));
  };
  // The backward loop: n = count; while n > 0: n -= 1, carrying the
  // gradients of the loop variables and sums for the loop constants.
  std::vector<size_t> vars, consts;
  for (size_t k = 0; k < loop.exits.size(); ++k)
    if (core::is_floating(s.output_of(loop.exits[k]).dtype()))
      vars.push_back(k);
  for (size_t j = 0; j < invariants.size(); ++j)
    if (core::is_floating(s.output_of(invariants[j]).dtype()))
      consts.push_back(j);
  std::vector<output> init{c_exit};
  for (auto k : vars)
    init.push_back(exit_grads[k].valid()
                     ? exit_grads[k]
                     : zeros_like(s, s.output_of(loop.exits[k])));
  for (auto j : consts)
    init.push_back(zeros_like(s, input_of(s, invariants[j], 0)));
  while_options options;
  options.parallel_iterations = 1; // pops in reverse iteration order
  auto cond_fn = [&](const scope& c, const std::vector<output>& v) {
    return greater(c, v[0], constant(c, 0.0, int64));
  };
  auto body_fn = [&](const scope& b, const std::vector<output>& v) {
    backward = b;
    std::vector<output> ys, xs, grad_ys;
    for (size_t i = 0; i < vars.size(); ++i) {
      ys.push_back(loop.next[vars[i]]);
      grad_ys.push_back(v[1 + i]);
      xs.push_back(s.output_of(loop.body_in[vars[i]]));
    }
    for (auto j : consts)
      xs.push_back(s.output_of(invariants[j]));
    auto g = gradients_between(b, ys, xs, grad_ys, true);
    std::vector<output> out{sub(b, v[0], constant(b, 1.0, int64))};
    for (size_t i = 0; i < vars.size(); ++i)
      out.push_back(g[i] ? *g[i] : zeros_like(b, v[1 + i]));
    for (size_t j = 0; j < consts.size(); ++j) {
      const auto& acc = v[1 + vars.size() + j];
      const auto& d = g[vars.size() + j];
      out.push_back(d ? add(b, acc, *d) : acc);
    }
    return out;
  };
  auto outs = build_while_loop(s.sub(loop.loop->frame + "_grad"), cond_fn,
                               body_fn, init, options, source);
  if (!s.ok())
    return s.status();
  // Close the counter's loop now that every push exists.
  auto c_next = first(counter.with_control_dependencies(pushes).add_node(
    "NextIteration", "NextIteration", {c_add}, {{"T", int64}}));
  if (!c_next.valid())
    return s.status();
  c_merge.state()->g.find(c_merge.node_name())->inputs[1] = c_next.node_name();
  for (size_t i = 0; i < vars.size(); ++i)
    sources->emplace_back(input_of(s, loop.enters[vars[i]], 0), outs[1 + i]);
  for (size_t j = 0; j < consts.size(); ++j)
    sources->emplace_back(input_of(s, invariants[consts[j]], 0),
                          outs[1 + vars.size() + j]);
  return core::status::ok();
}

} // namespace actorflow::graph::detail
