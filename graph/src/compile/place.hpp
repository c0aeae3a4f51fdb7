#pragma once

/// The placement step of a compile: every node of a run's graph gets a
/// full device name.

#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/placement.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph {

/// Sets every node's `device` to a full device name: explicit requests are
/// honoured, nodes joined by reference edges (a variable and its Assign)
/// share a device, the rest go to `default_device`. `devices` are full
/// device names (of every worker of a cluster), in order of preference. A
/// request no device can meet, or a group whose requests conflict, is
/// `invalid_argument`. Reads `g`'s edges (`g.edges()`: validation's,
/// when it built them), and sets devices only, which keeps them.
core::status place(graph& g, const graph_types& types,
                   const std::vector<std::string>& devices,
                   const ops::kernel_registry& kernels,
                   const std::string& default_device);

/// Asks for each node of `g` named in `pinned`, with the same op, the
/// device given there.
void pin_devices(graph& g, const pinned_devices& pinned);

} // namespace actorflow::graph
