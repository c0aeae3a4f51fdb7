#pragma once

// The Cap'n Proto form of shapes, attrs, graphs and statuses
// (net/schema/*.capnp), shared by the graph files and the messages that
// cross processes; tensors come from ops (tensor_codec.hpp). Internal: Cap'n
// Proto never appears in public headers.

#include <capnp/orphan.h>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"
#include "actorflow/graph/graph.hpp"
#include "graph.capnp.h"
#include "tensor_codec.hpp"

namespace actorflow::net::detail {

/// The version written into every encoded graph.
inline constexpr uint32_t graph_version = 1;

// Tensors have the form ops/schema/tensor.capnp gives them everywhere.
using ops::detail::check_rank;
using ops::detail::decode_dtype;
using ops::detail::decode_tensor;
using ops::detail::decode_tensor_header;
using ops::detail::encode_tensor;

/// Encodes the nodes of `g`.
void encode_graph(const graph::graph& g, schema::Graph::Builder out);

/// Decodes the nodes of a graph, checking every field (not the graph's
/// validity against an op registry: see `graph::validate`).
core::status decode_graph(schema::Graph::Reader in, graph::graph* out);

} // namespace actorflow::net::detail
