#include "while_grad.hpp"

#include "../builder_state.hpp"
#include "../builder_util.hpp"
#include "../loop_context.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "grad_util.hpp"

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

/// Where a forward value of a loop's body lives: in branch `branch` of
/// `cond` (a cond inside the loop), or outside any (`cond` null).
struct place {
  const cond_record* cond = nullptr;
  int branch = 0;
};

/// The conds inside `loop`'s body.
std::vector<const cond_record*> conds_in(const scope& s,
                                         const loop_record& loop) {
  std::vector<const cond_record*> out;
  for (const auto& c : s.output_of(loop.pivot).state()->conds)
    if (loop.body->contains(c->pivot_switch))
      out.push_back(c.get());
  return out;
}

/// The branch of a cond of the loop that `x` is in: built in it, or one of
/// the cond's Switches bringing a value into it.
place place_of(const scope& s, const std::vector<const cond_record*>& conds,
               const output& x) {
  for (const auto* c : conds) {
    // A cond's Switch (its capture of an outside value) is in both
    // branches' entries, but each output in one branch only.
    const auto* def = s.graph_def().find(x.node_name());
    core::input_ref ref;
    if (def != nullptr && def->op == "Switch" && def->inputs.size() == 2
        && core::input_ref::parse(def->inputs[1], &ref)
        && ref.node == c->pred.peek().node_name()
        && ref.port == c->pred.peek().port())
      return {c, x.port()};
    for (int b : {0, 1})
      if (c->branches[b]->contains(x.node_name()))
        return {c, b};
  }
  return {};
}

/// Fails for what the loop gradient does not handle yet: a cond inside a
/// cond inside the loop (its pops would need every predicate).
core::status check_supported(const scope& s, const loop_record& loop,
                             const std::vector<const cond_record*>& conds) {
  for (const auto* c : conds) {
    auto outer = place_of(s, conds, s.output_of(c->pivot_switch));
    if (outer.cond != nullptr && outer.cond != c)
      return core::unimplemented_error(
        "the gradient of a while loop whose body holds a cond inside a cond "
        "is not built yet (",
        c->pivot_switch, ")");
  }
  return core::status::ok();
}

/// The forward counter of a loop: n = 0; while pivot: n += 1, in the
/// loop's frame, built in scope `at`. `add` is the iteration's n + 1,
/// `exit` the count.
struct forward_counter {
  scope at;
  output merge, exit, add;
};

core::status add_forward_counter(const scope& s, const loop_record& loop,
                                 const scope& fwd, forward_counter* c) {
  auto int64 = core::dtype::int64;
  const auto& at = c->at;
  auto enter = first(
    at.add_node("Enter", "Enter", {constant(at, 0.0, int64)},
                {{"T", int64},
                 {"frame_name", loop.loop->frame},
                 {"is_constant", false},
                 {"parallel_iterations", loop.loop->parallel_iterations}}));
  // The second input becomes the NextIteration once the pushes exist.
  c->merge = first(at.add_node("Merge", "Merge", {enter, enter},
                               {{"T", int64}, {"N", int64_t{2}}}));
  auto sw = at.add_node("Switch", "Switch", {c->merge, s.output_of(loop.pivot)},
                        {{"T", int64}});
  if (sw.size() != 2)
    return s.status();
  c->exit = first(at.add_node("Exit", "Exit", {sw[0]}, {{"T", int64}}));
  c->add = first(at.add_node(
    "Add", "Add",
    {identity(at, sw[1]), constant(fwd.sub("grad_counter"), 1.0, int64)},
    {{"T", int64}}));
  return s.status();
}

/// Closes the counter's loop once every push exists: its NextIteration
/// waits for them, through a ControlTrigger as some are dead in iterations
/// that skip their branch. So pushes happen in iteration order, and the
/// count comes after the last one.
core::status close_forward_counter(const scope& s, const forward_counter& c,
                                   const std::vector<operation>& pushes) {
  std::vector<operation> synced;
  if (!pushes.empty()) // in the loop's frame: no anchor to an outer pivot
    synced.push_back(c.at.with_flow_context(nullptr)
                       .with_control_dependencies(pushes)
                       .add_operation("ControlTrigger", "sync", {}, {}));
  auto next = first(c.at.with_control_dependencies(synced).add_node(
    "NextIteration", "NextIteration", {c.add}, {{"T", core::dtype::int64}}));
  if (!next.valid())
    return s.status();
  c.merge.state()->g.mutable_find(c.merge.node_name())->inputs[1]
    = next.node_name();
  return core::status::ok();
}

} // namespace

core::status loop_gradient(const scope& s, const loop_record& loop,
                           const std::vector<output>& exit_grads,
                           const std::function<bool(const output&)>& wanted,
                           std::vector<std::pair<output, output>>* sources) {
  auto conds = conds_in(s, loop);
  ACTORFLOW_RETURN_IF_ERROR(check_supported(s, loop, conds));
  const auto outer = loop.loop->outer.get();
  auto fwd = outer.sub("grad_acc").with_flow_context(loop.body);
  auto int64 = core::dtype::int64;
  forward_counter counter{outer.sub("grad_counter"), {}, {}, {}};
  ACTORFLOW_RETURN_IF_ERROR(add_forward_counter(s, loop, fwd, &counter));
  const auto& c_add = counter.add;
  // What the backward body reads of the forward loop: loop constants from
  // outside enter it directly; values of the forward frame come through a
  // stack, pushed in each forward iteration and popped in reverse.
  auto invariants = loop.loop->invariants; // before the stacks add theirs
  auto is_invariant = [&](const std::string& name) {
    return std::find(invariants.begin(), invariants.end(), name)
           != invariants.end();
  };
  std::vector<operation> pushes, pops;
  std::optional<scope> backward;
  auto source
    = [&](const output& x, const std::string& device, bool* inside) -> output {
    if (is_invariant(x.node_name()))
      return input_of(s, x.node_name(), 0);
    if (!loop.contains(x.node_name()) || !backward)
      return {};
    auto base = x.dtype();
    // The stack lives with the gradient op that reads it, else with the
    // value: a pipeline stage keeps what its backward pass needs, and a
    // value sent between stages going forward is not sent back.
    auto at_stack
      = outer.sub("grad_acc")
          .with_device(device.empty() ? requested_device(s, x) : device);
    auto stack = first(at_stack.add_node(
      "StackV2", "StackV2",
      {int_constant(at_stack, "max_size", {-1}, true, core::dtype::int32)},
      {{"elem_type", base}, {"stack_name", x.name()}}));
    auto push = first(
      fwd.with_device(at_stack.device())
        .with_control_dependencies({c_add.op()})
        .add_node("StackPushV2", "StackPushV2", {stack, x}, {{"T", base}}));
    if (!push.valid())
      return {};
    pushes.push_back(push.op());
    *inside = true;
    // A value of a cond's branch was pushed only in the iterations that
    // took the branch: pop it only in those, by the saved predicate.
    auto at = place_of(s, conds, x);
    if (at.cond != nullptr) {
      auto guard
        = backward->add_node("Switch", "Switch", {stack, at.cond->pred.get()},
                             {{"T", core::dtype::string}});
      if (guard.size() != 2)
        return {};
      stack = guard[static_cast<size_t>(at.branch)];
    }
    auto pop = first(
      backward->with_device(at_stack.device())
        .add_node("StackPopV2", "StackPopV2", {stack}, {{"elem_type", base}}));
    if (pop.valid())
      pops.push_back(pop.op());
    return pop;
  };
  // The backward loop: n = count; while n > 0: n -= 1, carrying the
  // gradients of the loop variables and sums for the loop constants.
  std::vector<size_t> vars, consts;
  for (size_t k = 0; k < loop.exits.size(); ++k)
    if (carries_gradient(s.output_of(loop.exits[k]).dtype()))
      vars.push_back(k);
  // Only the loop constants whose gradient was asked for: the others
  // (a sequence the loop reads, say) need no sum, and their ops on the way
  // no gradient function.
  for (size_t j = 0; j < invariants.size(); ++j)
    if (carries_gradient(s.output_of(invariants[j]).dtype())
        && wanted(input_of(s, invariants[j], 0)))
      consts.push_back(j);
  std::vector<output> init{counter.exit};
  for (auto k : vars)
    init.push_back(exit_grads[k].valid()
                     ? exit_grads[k]
                     : zeros_like(s, s.output_of(loop.exits[k])));
  // A loop constant's sum starts and grows on the device of the constant
  // (a stage's weights): its gradient does not travel every iteration.
  for (auto j : consts) {
    auto x = input_of(s, invariants[j], 0);
    init.push_back(zeros_like(s.with_device(requested_device(s, x)), x));
  }
  // As many iterations in flight as forward (a pipeline's backward pass
  // overlaps its stages too); the pops stay in reverse iteration order as
  // the counter's next value waits for the iteration's pops.
  while_options options;
  options.parallel_iterations = loop.loop->parallel_iterations;
  auto cond_fn = [&](const scope& c, const std::vector<output>& v) {
    return greater(c, v[0], constant(c, 0.0, int64));
  };
  auto body_fn = [&](const scope& b, const std::vector<output>& v) {
    // Pops are built in the backward body, whichever region asks for them.
    backward = b.with_flow_context(b.flow_context());
    std::vector<output> ys, xs, grad_ys;
    for (size_t i = 0; i < vars.size(); ++i) {
      ys.push_back(loop.next[vars[i]].get());
      grad_ys.push_back(v[1 + i]);
      xs.push_back(s.output_of(loop.body_in[vars[i]]));
    }
    for (auto j : consts)
      xs.push_back(s.output_of(invariants[j]));
    auto g = gradients_between(b, ys, xs, grad_ys, true);
    std::vector<operation> synced;
    if (!pops.empty()) // some are dead in iterations that skip a branch
      synced.push_back(b.with_control_dependencies(pops).add_operation(
        "ControlTrigger", "sync", {}, {}));
    std::vector<output> out{
      sub(b.with_control_dependencies(synced), v[0], constant(b, 1.0, int64))};
    for (size_t i = 0; i < vars.size(); ++i)
      out.push_back(g[i] ? *g[i] : zeros_like(b, v[1 + i]));
    for (size_t j = 0; j < consts.size(); ++j) {
      const auto& acc = v[1 + vars.size() + j];
      const auto& d = g[vars.size() + j];
      if (!d) {
        out.push_back(acc);
        continue;
      }
      auto at = b.with_device(requested_device(s, *d));
      // Lists (a sequence the loop reads by item) add as lists.
      out.push_back(acc.dtype() == core::dtype::variant ? add_n(at, {acc, *d})
                                                        : add(at, acc, *d));
    }
    return out;
  };
  auto outs = build_while_loop(s.sub(loop.loop->frame + "_grad"), cond_fn,
                               body_fn, init, options, source);
  if (!s.ok())
    return s.status();
  ACTORFLOW_RETURN_IF_ERROR(close_forward_counter(s, counter, pushes));
  for (size_t i = 0; i < vars.size(); ++i)
    sources->emplace_back(input_of(s, loop.enters[vars[i]], 0), outs[1 + i]);
  for (size_t j = 0; j < consts.size(); ++j)
    sources->emplace_back(input_of(s, invariants[consts[j]], 0),
                          outs[1 + vars.size() + j]);
  return core::status::ok();
}

} // namespace actorflow::graph::detail
