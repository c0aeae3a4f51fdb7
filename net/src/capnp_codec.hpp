#pragma once

// The Cap'n Proto form of tensors, shapes, attrs, graphs and statuses
// (net/schema/*.capnp), shared by the graph files, checkpoints-to-be and the
// messages that cross processes. Internal: Cap'n Proto never appears in
// public headers.

#include <capnp/orphan.h>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/graph.hpp"
#include "graph.capnp.h"

namespace actorflow::net::detail {

/// The version written into every encoded graph.
inline constexpr uint32_t graph_version = 1;

/// Encodes `t`. With `zero_copy`, a numeric tensor's bytes are referenced
/// rather than copied: they must outlive the message builder.
void encode_tensor(const core::tensor& t, schema::Tensor::Builder out,
                   capnp::Orphanage* zero_copy = nullptr);

/// Decodes a tensor's dtype and shape (not its elements), checking the
/// dtype code, the rank and that the element count stays below 2^40.
core::status decode_tensor_header(schema::Tensor::Reader in, core::dtype* type,
                                  core::shape* shape);

/// Decodes a tensor, checking dtype, rank, dimensions and the byte count
/// before allocating.
core::status decode_tensor(schema::Tensor::Reader in, core::tensor* out);

/// Encodes the nodes of `g`.
void encode_graph(const graph::graph& g, schema::Graph::Builder out);

/// Decodes the nodes of a graph, checking every field (not the graph's
/// validity against an op registry: see `graph::validate`).
core::status decode_graph(schema::Graph::Reader in, graph::graph* out);

} // namespace actorflow::net::detail
