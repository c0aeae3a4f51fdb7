#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/actors/engine.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::actors {

/// One task of a cluster: a process running an `actorflow worker`.
struct cluster_task {
  std::string job;
  int index = 0;
  std::string host;
  uint16_t port = 0; ///< 0 in a file: the worker binds any free port.
  int cpus = 1;      ///< CPU devices cpu:0 .. cpu:N-1.
  /// Where the task itself listens, when the others reach it at `host`
  /// and `port` by way of something that forwards (a published container
  /// port, a tunnel, a relay): the file's `listen`. Empty: `host`, `port`.
  std::string listen_host;
  uint16_t listen_port = 0;

  /// The host the task listens on: `listen_host`, or else `host`.
  const std::string& bind_host() const {
    return listen_host.empty() ? host : listen_host;
  }

  /// The port the task listens on: `listen_port` with a `listen_host`,
  /// or else `port`.
  uint16_t bind_port() const {
    return listen_host.empty() ? port : listen_port;
  }

  /// `/job:J/task:T`.
  std::string name() const;
};

/// A cluster file (YAML), as `actorflow worker` and clients read it:
///
/// ~~~
/// jobs:
///   ps:
///     tasks: [127.0.0.1:7100]
///   worker:
///     tasks: [127.0.0.1:7101, 127.0.0.1:7102]
///     cpus: 2            # CPU devices per task (default 1)
///     listen: [0.0.0.0:2222, 0.0.0.0:2223]   # where each task binds, if
///                        # others reach it elsewhere (default: tasks)
/// timeouts:
///   connect_ms: 10000    # connecting to a worker, asking its devices
///   heartbeat_ms: 5000   # how often processes tell peers they are alive
///                        # (a third of peer_ms when only that is given)
///   peer_ms: 15000       # silence after which a peer counts as gone
/// tls:                   # mutual TLS between every process (optional)
///   ca: ca.pem           # peers need a certificate this CA signed
///   certificate: "{job}-{task}.pem"   # each task's, {job} {task} filled in
///   key: "{job}-{task}.key"
///   client_certificate: client.pem    # clients' (actorflow run, ...)
///   client_key: client.key
/// ~~~
///
/// Relative TLS paths are relative to the cluster file's directory.
struct cluster_spec {
  std::vector<cluster_task> tasks;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds heartbeat{5000};
  std::chrono::milliseconds peer_timeout{15000};
  /// TLS: the CA, the tasks' certificate and key (with `{job}` and
  /// `{task}` to fill in) and the clients'; no CA: plain TCP.
  struct tls_section {
    std::string ca;
    std::string certificate;
    std::string key;
    std::string client_certificate;
    std::string client_key;
  } tls;

  /// Parses YAML text; `invalid_argument` naming what is wrong.
  static core::status parse(const std::string& yaml, cluster_spec* out);

  /// Reads and parses a file.
  static core::status load(const std::string& path, cluster_spec* out);

  /// A cluster of `jobs` (name, its tasks' `host:port`), checked as a
  /// file's would be, with the default timeouts and no TLS.
  static core::status from_jobs(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& jobs,
    cluster_spec* out);

  /// The task named `job:index` (or `/job:J/task:T`), or nullptr.
  const cluster_task* find(std::string_view name) const;
};

/// Engine options for the worker of `task`: its devices are named
/// `/job:J/task:T/device:cpu:N`, the network is on, with the heartbeat,
/// peer timeout and TLS files (the task's) of `spec`.
engine_options worker_options(const cluster_task& task,
                              const cluster_spec& spec = {});

/// Engine options for a client of the cluster of `spec`: the network on,
/// with its heartbeat, peer timeout and TLS files (the clients'); connect
/// with `connect_cluster`.
engine_options client_options(const cluster_spec& spec);

/// Publishes the engine's worker on `host:port` (port 0: any free port)
/// through CAF's middleman, or its openssl module when the engine uses
/// TLS (the engine needs `engine_options::network`); returns the port
/// bound.
core::status serve_worker(engine& e, const std::string& host, uint16_t port,
                          uint16_t* bound);

/// Connects to the worker of every task of `spec`, asks each for its
/// devices and makes the engine's later sessions run on them (the engine
/// needs `engine_options::network`). `unavailable` names a task that cannot
/// be reached within the connect timeout.
core::status connect_cluster(engine& e, const cluster_spec& spec);

/// Like `connect_cluster`, for a process serving task `me` whose peers,
/// the tasks of `peers`, reach it at the same time as it reaches them (the
/// replicas of an all-reduce job): of each pair only the task listed later
/// (by job, then index) connects, and introduces itself over that
/// connection; the other waits for it, within `peers.connect_timeout`.
/// Two processes that connect to each other at once may lose requests
/// between them: CAF 0.17.6 takes each one's connection as its route to
/// the other, and a message that arrives on the other connection cannot
/// be answered (docs/scale.md).
core::status join_peers(engine& e, const cluster_spec& peers,
                        const cluster_task& me);

} // namespace actorflow::actors
