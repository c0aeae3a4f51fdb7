#pragma once

// Whether this machine can run every task of a cluster file at once:
// checked by `actorflow cluster up` before it starts any.

#include "actorflow/actors/cluster.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::apps {

/// What one idle task holds here, as bench_scale measured it (256
/// one-thread workers, docs/scale.md), with room to spare: its memory
/// (about 4 MiB anonymous and 4 MiB of shared pages as its share) and its
/// threads (9 with one thread per device).
inline constexpr double task_memory_mib = 8;
inline constexpr int task_threads = 9;

/// Ok if this machine has open files, threads and memory for every task
/// of `spec` and each task's port is free; otherwise an error naming what
/// is short, by how much, and what to do.
core::status check_local_capacity(const actors::cluster_spec& spec);

} // namespace actorflow::apps
