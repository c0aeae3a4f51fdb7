#pragma once

/// The loop frame of every node of a graph: which nodes run once per
/// iteration of which loop.

#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph {

/// The loop frame of every node, found from the Enters and Exits: a node
/// is in the frame its inputs are in, an Enter's consumers are in the child
/// frame it names, an Exit's consumers in the parent of its frame.
struct control_flow_info {
  /// A static frame: one per loop of the graph (frame 0 is the root).
  struct frame {
    std::string name;
    int parent = -1;
    int parallel_iterations = 1;
  };

  std::vector<frame> frames;
  /// Per node (by index): its frame.
  std::vector<int> node_frame;
};

/// Builds `info` for a validated `g`. Fails, naming the node, on an Exit or
/// NextIteration outside any frame, a node reached from two frames, and
/// Enters of one frame that disagree on `parallel_iterations`.
core::status build_control_flow_info(const graph& g, control_flow_info* info);

/// The same, reading the edges from `index` (built from `g`).
core::status build_control_flow_info(const graph& g, const graph_index& index,
                                     control_flow_info* info);

} // namespace actorflow::graph
