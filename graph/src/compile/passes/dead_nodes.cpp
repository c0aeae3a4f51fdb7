// The dead_nodes pass: stateless nodes nothing reads, removed until none
// is left.

#include "actorflow/graph/graph_passes.hpp"
#include "compile/passes/pass_util.hpp"

namespace actorflow::graph::passes {

core::status dead_nodes(graph& g, const pass_context& ctx,
                        std::vector<std::string>* log) {
  // Removing a node can leave its inputs unread: repeat until nothing is
  // removed (at most once per node).
  for (size_t round = 0; round <= g.size(); ++round) {
    detail::consumers c{g};
    std::vector<bool> removed(g.size(), false);
    bool any = false;
    const auto& nodes = g.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      const auto& node = nodes[i];
      const auto* def = ctx.ops.find(node.op);
      if (c.data[i] != 0 || c.control[i] != 0 || ctx.keep.count(node.name) != 0
          || def == nullptr || def->is_stateful || detail::is_fixed_op(node.op))
        continue;
      removed[i] = any = true;
      if (log != nullptr)
        log->push_back(node.name + " (" + node.op + ") is never read");
    }
    if (!any)
      return core::status::ok();
    ACTORFLOW_RETURN_IF_ERROR(detail::remove_nodes(g, removed));
  }
  return core::status::ok();
}

} // namespace actorflow::graph::passes
