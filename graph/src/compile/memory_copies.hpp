#pragma once

/// The last step of a compile: host/device copies where a GPU's kernel and
/// its producer keep a tensor in different memories.

#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/compile_run.hpp"

namespace actorflow::graph {

/// Inserts a `_HostToDevice` or `_DeviceToHost` copy on each edge of a
/// partition of a device with memory of its own (a GPU) where the
/// producer's output and the consumer's input live in different memories,
/// as the kernels' memory specs say (TensorFlow's `EnsureMemoryTypes`):
/// a Recv or Feed gives host memory, a Send or Fetch takes it, a kernel's
/// shape or predicate input wants it. One copy per tensor and direction;
/// the copies' types are added to the partition's.
core::status insert_memory_copies(std::vector<typed_partition>& parts,
                                  const ops::kernel_registry& kernels);

} // namespace actorflow::graph
