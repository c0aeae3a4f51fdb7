#pragma once

/// A worker a session may place nodes on, as a cluster's start or an
/// engine names it.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>

namespace actorflow::actors {

/// A worker a session may place nodes on: its task name
/// (`/job:J/task:T`), its actor (local or remote) and the full names of
/// its devices, in placement order.
struct worker_ref {
  std::string task;
  /// The worker's actor; the protocol it speaks is the runtime's own.
  caf::actor handle;
  std::vector<std::string> devices;
  /// Where a remote worker listens (port 0: this process's worker) and how
  /// long connecting may take: a session whose worker was gone connects
  /// there again when a run needs it (the task restarted).
  std::string host;
  uint16_t port = 0;
  std::chrono::milliseconds connect_timeout{10000};
  /// Whether the connection is TLS (CAF's openssl module).
  bool tls = false;
};

} // namespace actorflow::actors
