#pragma once

// The parameter-server split of a training graph, as TensorFlow's
// replica_device_setter makes it: the model's variables, and the nodes
// joined to them by reference edges (initializers, updates), on one device;
// every other node on another.

#include <set>
#include <string>

#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/validate.hpp"

namespace actorflow::test {

/// Puts the variables of `g` whose names do not start with `keep_prefix`
/// (the data of a training graph), and the nodes that take them by
/// reference, on `ps`; every other node on `worker`.
inline core::status split_ps_worker(graph::graph& g,
                                    const ops::op_registry& registry,
                                    const std::string& ps,
                                    const std::string& worker,
                                    const std::string& keep_prefix = "data/") {
  graph::graph_types types;
  ACTORFLOW_RETURN_IF_ERROR(graph::validate(g, registry, &types));
  std::set<std::string> vars;
  for (const auto& n : g.nodes())
    if (n.op == "VariableV2" && n.name.rfind(keep_prefix, 0) != 0)
      vars.insert(n.name);
  auto& nodes = g.mutable_nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    bool ps_side = vars.count(nodes[i].name) > 0;
    for (size_t k = 0; k < types.inputs[i].size(); ++k) {
      core::input_ref r;
      if (!core::input_ref::parse(nodes[i].inputs[k], &r))
        return core::invalid_argument_error("node ", nodes[i].name,
                                            ": bad input ", nodes[i].inputs[k]);
      ps_side = ps_side || (types.inputs[i][k].is_ref && vars.count(r.node));
    }
    nodes[i].device = ps_side ? ps : worker;
  }
  return g.reindex();
}

} // namespace actorflow::test
