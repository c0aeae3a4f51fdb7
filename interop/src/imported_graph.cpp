// Where every importer ends: the nodes added, the failing one named, the
// layout rewritten.

#include "imported_graph.hpp"

#include "layout.hpp"

namespace actorflow::interop::detail {

core::status add_imported_nodes(std::vector<core::node_def> nodes,
                                graph::graph* g) {
  for (auto& n : nodes) {
    auto name = n.name;
    auto op = n.op;
    auto st = g->add(std::move(n));
    if (!st.is_ok())
      return st.with_context(name, op);
  }
  return nchw_to_nhwc(g);
}

} // namespace actorflow::interop::detail
