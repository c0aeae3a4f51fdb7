#pragma once

/// Rewrites what a graph written on GPUs lays out NCHW into the NHWC the
/// engine's kernels take.

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"

namespace actorflow::interop::detail {

/// Rewrites every windowed node with `data_format` "NCHW" (Conv2D,
/// DepthwiseConv2dNative, MaxPool, AvgPool, BiasAdd of rank 4, and their
/// gradients) into its NHWC form between Transposes: image inputs to NHWC,
/// shape inputs (input_sizes, orig_input_shape) permuted, the window attrs
/// (strides, ksize, dilations, explicit_paddings) permuted, and the image
/// output back to NCHW under the node's own name, so that its consumers
/// are untouched. TensorFlow's layout optimizer does the same the other
/// way on GPUs. FusedBatchNorm* keep NCHW (their kernels take it). Returns
/// the nodes rewritten in `*rewritten` when given.
core::status nchw_to_nhwc(graph::graph* g, size_t* rewritten = nullptr);

} // namespace actorflow::interop::detail
