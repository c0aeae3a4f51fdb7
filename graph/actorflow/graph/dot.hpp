#pragma once

#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"

namespace actorflow::graph {

/// Draws `g` in Graphviz's dot language (`dot -Tsvg`): a box per node with
/// its name and op, data edges solid (labelled with the output port when
/// it is not 0), control edges dashed, each loop frame a cluster inside
/// its parent frame's, each device its own fill colour (listed in a
/// legend). Fails, naming the node, on an input that names no node.
core::status to_dot(const graph& g, std::string* out);

/// Draws the partitions a run placed (`run_metadata::partition_graphs`):
/// each partition a cluster labelled with its device, its loop frames
/// nested inside, and a dotted edge from every Send to the Recv on another
/// partition that takes its value (matched by `tensor_name`).
core::status partitions_to_dot(const std::vector<graph>& partitions,
                               std::string* out);

} // namespace actorflow::graph
