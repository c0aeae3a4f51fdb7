// Gradient functions of a cond's Switch and Merge, after TensorFlow's
// control_flow_grad.py: the gradient takes the branch the forward pass
// took, and is dead (so skipped) in the other.

#include "../builder_state.hpp"
#include "../builder_util.hpp"
#include "grad_util.hpp"

namespace actorflow::graph::detail {

namespace {

core::status loops_not_built(const gradient_op& op) {
  return core::unimplemented_error(
    "gradients through while loops are not built yet (", op.node.op, " ",
    op.node.name, " belongs to a loop)");
}

} // namespace

void register_control_flow_gradients(gradient_registry& r) {
  // Switch(x, pred) -> (x if false, x if true): x's gradient is whichever
  // of the two output gradients is live, Merge'd (an unused output's zeros
  // are dead with its branch).
  auto switch_grad = [](const scope& s, const gradient_op& op,
                        const std::vector<output>& g, std::vector<output>* in) {
    const auto* pred = s.graph_def().find(op.inputs[1].node_name());
    if (pred != nullptr && pred->op == "LoopCond")
      return loops_not_built(op);
    auto merged = s.add_node("Merge", "Merge", {g[0], g[1]},
                             {{"T", g[0].dtype()}, {"N", int64_t{2}}});
    if (!merged.empty())
      (*in)[0] = merged[0];
    return core::status::ok();
  };
  r.add("Switch", switch_grad);
  r.add("RefSwitch", switch_grad);
  // A cond's Merge(false result, true result): the gradient switched on
  // the cond's predicate goes back into the branch that ran.
  r.add("Merge", [](const scope& s, const gradient_op& op,
                    const std::vector<output>& g, std::vector<output>* in) {
    const auto& preds = op.outputs[0].state()->cond_preds;
    auto it = preds.find(op.node.name);
    if (it == preds.end())
      return loops_not_built(op);
    auto pred = s.output_of(it->second.first, it->second.second);
    auto routed
      = s.add_node("Switch", "Switch", {g[0], pred}, {{"T", g[0].dtype()}});
    if (routed.size() == 2) {
      (*in)[0] = routed[0];
      (*in)[1] = routed[1];
    }
    return core::status::ok();
  });
}

} // namespace actorflow::graph::detail
