#pragma once

// Internal: the fusion pass's rules and what they share.

#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/graph/graph_passes.hpp"

namespace actorflow::graph::passes::fusion_rules {

/// The node that reads data input `port` of `node`, if it is an `op`.
const core::node_def* input_of(const graph& g, const core::node_def& node,
                               size_t port, const char* op);

/// Whether the device `node` will be placed on has a kernel of `op`: the
/// type it asks for, else the default device's, else a CPU's.
bool has_kernel(const pass_context& ctx, const core::node_def& node,
                const std::string& op);

/// Puts each fused node in place of the node of its name, then removes
/// the nodes `removed` marks (the ones fused into them).
core::status replace(graph& g, std::vector<core::node_def>& fused,
                     const std::vector<bool>& removed);

/// Makes Conv2D or DepthwiseConv2dNative (-> BiasAdd) -> an inference
/// FusedBatchNorm (-> Relu or Relu6), float32 and NHWC, each read by the
/// next alone, one `_FusedConvBatchNorm` named after the last node.
core::status fuse_batch_norms(graph& g, const pass_context& ctx,
                              std::vector<std::string>* log);

} // namespace actorflow::graph::passes::fusion_rules
