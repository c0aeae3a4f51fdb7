// What the fusion rules share: finding a chain's nodes, and putting the
// fused nodes in place.

#include "compile/passes/fusion_rules.hpp"

#include "actorflow/core/device_name.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes::fusion_rules {

const core::node_def* input_of(const graph& g, const core::node_def& node,
                               size_t port, const char* op) {
  auto args = detail::data_inputs(node);
  if (port >= args.size() || args[port].port != 0)
    return nullptr;
  const auto* producer = g.find(args[port].node);
  return producer != nullptr && producer->op == op ? producer : nullptr;
}

bool has_kernel(const pass_context& ctx, const core::node_def& node,
                const std::string& op) {
  auto name = core::device_name::parse(node.device);
  auto fallback = core::device_name::parse(ctx.default_device);
  auto type = name && name->type           ? *name->type
              : fallback && fallback->type ? *fallback->type
                                           : std::string{"cpu"};
  return ctx.kernels.supports(op, type);
}

core::status replace(graph& g, std::vector<core::node_def>& fused,
                     const std::vector<bool>& removed) {
  if (fused.empty())
    return core::status::ok();
  for (auto& node : fused)
    *g.mutable_find(node.name) = std::move(node);
  return detail::remove_nodes(g, removed);
}

} // namespace actorflow::graph::passes::fusion_rules
