// The arithmetic pass: rewrites that keep every value bit for bit (a
// ReluGrad moved under the MaxPoolGrad it follows).

#include "actorflow/graph/graph_passes.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes {

namespace {

/// The MaxPoolGrad a ReluGrad can move ahead of: it computes the ReluGrad's
/// gradient input, reads the ReluGrad's features as its pooled input, is
/// read by nothing else and is not kept.
const core::node_def* pool_grad_under(const graph& g,
                                      const detail::consumers& c,
                                      const pass_context& ctx,
                                      const core::node_def& relu_grad) {
  auto args = detail::data_inputs(relu_grad);
  if (args.size() != 2 || args[0].port != 0)
    return nullptr;
  const auto* pool_grad = g.find(args[0].node);
  if (pool_grad == nullptr || pool_grad->op != "MaxPoolGrad")
    return nullptr;
  auto pool_args = detail::data_inputs(*pool_grad);
  if (!detail::only_read_by(g, c, ctx.keep, *pool_grad, relu_grad)
      || pool_args.size() != 3
      || pool_args[0].to_string() != args[1].to_string())
    return nullptr;
  return pool_grad;
}

} // namespace

core::status arithmetic(graph& g, const pass_context& ctx,
                        std::vector<std::string>* log) {
  // ReluGrad(MaxPoolGrad(x, y, g), x) = MaxPoolGrad(x, y, ReluGrad(g, y)):
  // a window's gradient reaches only a position where x is the window's
  // maximum y, so x > 0 there exactly when y > 0. The ReluGrad then runs
  // on the pooled tensor, a quarter of the size for 2x2 windows, and the
  // result is the same bit for bit (it selects, it does not scale).
  detail::consumers c{g};
  std::vector<bool> removed(g.size(), false);
  std::vector<core::node_def> added, replaced;
  for (const auto& relu_grad : g.nodes()) {
    if (relu_grad.op != "ReluGrad")
      continue;
    const auto* pool_grad = pool_grad_under(g, c, ctx, relu_grad);
    if (pool_grad == nullptr)
      continue;
    auto pool_args = detail::data_inputs(*pool_grad);
    core::node_def pooled{g.unique_name(relu_grad.name + "/pooled"),
                          "ReluGrad",
                          {pool_args[2].to_string(), pool_args[1].to_string()},
                          relu_grad.device,
                          relu_grad.attrs};
    core::node_def node{
      relu_grad.name,
      "MaxPoolGrad",
      {pool_args[0].to_string(), pool_args[1].to_string(), pooled.name},
      relu_grad.device,
      pool_grad->attrs};
    for (const auto* part : {pool_grad, &relu_grad})
      for (const auto& ctl : detail::control_inputs(*part))
        node.inputs.push_back("^" + ctl);
    removed[static_cast<size_t>(g.index_of(pool_grad->name))] = true;
    if (log != nullptr)
      log->push_back(relu_grad.name + " (ReluGrad) of " + pool_grad->name
                     + " (MaxPoolGrad) runs on the pooled gradient as "
                     + pooled.name);
    added.push_back(std::move(pooled));
    replaced.push_back(std::move(node));
  }
  if (replaced.empty())
    return core::status::ok();
  for (auto& node : replaced)
    *g.mutable_find(node.name) = std::move(node);
  ACTORFLOW_RETURN_IF_ERROR(detail::remove_nodes(g, removed));
  for (auto& node : added)
    ACTORFLOW_RETURN_IF_ERROR(g.add(std::move(node)));
  return core::status::ok();
}

} // namespace actorflow::graph::passes
