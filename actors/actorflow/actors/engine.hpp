#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actorflow/actors/protocol.hpp"
#include "actorflow/actors/runtime_context.hpp"
#include "actorflow/actors/session_options.hpp"
#include "actorflow/actors/tls_files.hpp"
#include "actorflow/actors/worker_ref.hpp"
#include "actorflow/devices/cpu_device.hpp"

namespace actorflow::actors {

/// How an engine is set up.
struct engine_options {
  /// CPU devices `cpu:0` ... `cpu:N-1` in this process.
  int num_cpu_devices = 2;
  /// GPU devices `gpu:0` ... in this process: at most this many of those
  /// the CUDA driver sees (negative: all; none in a build without CUDA).
  /// Nodes go to a GPU when they ask for one or `default_device` is one.
  int num_gpu_devices = -1;
  /// Intra-op threads per CPU device; 0 means the number of cores.
  int threads_per_device = 0;
  /// How long a CPU device's pool threads poll for work after their last
  /// task before they sleep, and a split kernel's calling thread for its
  /// helpers (a sleeping thread wakes tens of microseconds late on a VM);
  /// 0: they sleep at once.
  std::chrono::microseconds pool_spin = devices::default_pool_spin;
  /// Where nodes without a device request go.
  std::string default_device = "cpu:0";
  /// CAF scheduler threads when the engine owns its actor system; 0 means
  /// one per core.
  int scheduler_threads = 0;
  /// The task this process is in a cluster: its devices are named
  /// `/job:<job>/task:<task>/device:cpu:N`.
  std::string job = "localhost";
  int task = 0;
  /// Loads CAF's middleman into an actor system the engine owns, so that
  /// its worker can be published or remote workers reached (see
  /// actors/cluster.hpp). A system of the user's must load it itself.
  bool network = false;
  /// The address other processes of a cluster reach this one at (its
  /// task's host). With the network on, the engine's worker listens there
  /// too, at a port the OS picks, for large tensors from other workers
  /// (the bulk path, docs/cluster.md); empty: every value goes through CAF.
  std::string host;
  /// Values whose tensors have at least this many bytes take the bulk
  /// path to workers that have one; smaller ones, and every control
  /// message, go through CAF.
  size_t bulk_min_bytes = size_t{64} << 10;
  /// With the network on, in an actor system the engine owns: how often
  /// this process tells its peers it is alive (CAF's BASP heartbeat), and
  /// how long a peer may stay silent before its connection is closed --
  /// its workers are then gone and the steps that need them fail
  /// (docs/cluster.md). 0 turns either off.
  std::chrono::milliseconds heartbeat{5000};
  std::chrono::milliseconds peer_timeout{15000};
  /// With the network on, in an actor system the engine owns: every
  /// connection to and from this process is mutual TLS with these files
  /// (CAF's openssl module), none plain. A peer without a certificate the
  /// CA signed is refused during the handshake, before any message is
  /// read. The bulk path speaks TLS then too, with the same files and the
  /// same checks (OpenSSL). Files that cannot be read make `init_status`
  /// an error and the engine has no network.
  tls_files tls;
};

/// An actorflow engine: registries, devices and variable containers, the
/// worker actor that owns them, and the actor system that runs sessions.
///
/// It either owns its `caf::actor_system` or runs inside one the user
/// already has (call `add_message_types` on that system's config first).
/// Sessions share the engine's variable containers. Destroying the engine
/// stops every session it spawned.
class engine {
public:
  explicit engine(engine_options options = {});

  engine(caf::actor_system& sys, engine_options options = {});

  ~engine();

  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Registers actorflow's message types and error category with `cfg`,
  /// and names the wire version in CAF's handshake (`wire_identifier`,
  /// actors/src/transport/worker_protocol.hpp).
  static void add_message_types(caf::actor_system_config& cfg);

  /// Returns the first error of set-up (ok if the engine is usable).
  const core::status& init_status() const noexcept {
    return init_;
  }

  caf::actor_system& system() noexcept {
    return *sys_;
  }

  runtime_context& context() noexcept {
    return *rt_;
  }

  /// The worker of this process, which owns the devices, variables and
  /// queues of `context()` (its protocol is the runtime's own).
  const caf::actor& local_worker() const noexcept {
    return worker_;
  }

  /// Whether this engine's connections are TLS (`engine_options::tls`).
  bool uses_tls() const noexcept {
    return tls_;
  }

  /// Where this process's worker takes large tensors from other workers
  /// (`host:port`), or empty if it has no bulk path.
  const std::string& bulk_address() const noexcept {
    return bulk_address_;
  }

  /// This process's metrics in Prometheus' text format (`metrics`).
  std::string metrics_text() const {
    return rt_->counters()->render(*rt_);
  }

  /// The workers sessions place nodes on: this process's worker, or the
  /// workers of a cluster (see `use_workers`).
  std::vector<worker_ref> workers() const;

  /// Makes later sessions run on `workers` (e.g. from `actors::cluster`)
  /// rather than on this process's worker alone.
  void use_workers(std::vector<worker_ref> workers);

  /// Spawns a new session actor, for users who send it requests from their
  /// own actors.
  session_actor spawn_session(session_options options = {});

private:
  void init(const engine_options& options);

  std::unique_ptr<caf::actor_system_config> own_cfg_;
  std::unique_ptr<caf::actor_system> own_sys_;
  caf::actor_system* sys_;
  std::shared_ptr<runtime_context> rt_;
  core::status init_;
  caf::actor worker_;
  /// The process's collective actor
  /// (actors/src/collectives/collective_actor.hpp).
  caf::actor collectives_;
  std::string bulk_address_;
  bool tls_ = false;
  mutable std::mutex mtx_;
  std::vector<worker_ref> workers_;
  std::vector<caf::actor_addr> sessions_;
};

} // namespace actorflow::actors
