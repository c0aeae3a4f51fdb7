#pragma once

/// Graphs in their Cap'n Proto form (net/schema/graph.capnp), as bytes and
/// as files. Decoding is defensive: a size limit, a traversal limit, and
/// every field checked before it is used; the decoded graph is validated
/// against an op registry. Malformed input is an error, never a crash.

#include <cstddef>
#include <string>
#include <string_view>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace actorflow::net {

/// The largest encoded graph accepted by default: 256 MiB.
inline constexpr size_t default_max_graph_bytes = size_t{256} << 20;

/// Encodes `g`; the same graph always gives the same bytes.
core::status encode_graph(const graph::graph& g, std::string* out);

/// Decodes and validates a graph; `invalid_argument` for a message over
/// `max_bytes` or one that is not a valid Cap'n Proto graph, and the
/// validation status (naming the node) for an invalid graph.
core::status decode_graph(std::string_view bytes,
                          const ops::op_registry& registry, graph::graph* out,
                          size_t max_bytes = default_max_graph_bytes);

/// Writes `g` to `path`.
core::status save_graph(const graph::graph& g, const std::string& path);

/// Reads, decodes and validates the graph in `path`.
core::status load_graph(const std::string& path,
                        const ops::op_registry& registry, graph::graph* out,
                        size_t max_bytes = default_max_graph_bytes);

} // namespace actorflow::net
