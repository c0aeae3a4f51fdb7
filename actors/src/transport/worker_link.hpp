#pragma once

#include <chrono>
#include <cstdint>
#include <set>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/fwd.hpp>
#include <caf/io/middleman_actor.hpp>

#include "actorflow/core/status.hpp"
#include "transport/worker_protocol.hpp"

namespace actorflow::actors {

/// The actor that opens connections to actors published on other hosts:
/// the OpenSSL manager's when `tls`, else CAF's middleman's. A client that
/// connects to a cluster and a master that connects to a restarted worker
/// both ask it (`connect_atom, host, port`).
caf::io::middleman_actor connector(caf::actor_system& sys, bool tls);

/// Whether a connect request that failed with `err` timed out, so that
/// another try may succeed: the request's own timeout, or CAF 0.17's
/// `connection_timeout` on a connection still in its handshake -- its
/// BASP broker gives a connection it opens no time of last contact, so
/// the first heartbeat tick that comes before the peer's handshake
/// drops it as silent (basp_broker.cpp, `connect_atom` and `tick_atom`).
bool timed_out(const caf::error& err);

/// The worker in the answer to a connect request: `ptr`, the actor
/// published there, when its messaging interface `ifs` is a worker's
/// (what CAF's `remote_actor<worker_actor>` checks); else `unavailable`
/// saying what is there instead.
core::status worker_at(caf::actor_system& sys, caf::strong_actor_ptr ptr,
                       const std::set<std::string>& ifs, worker_actor* out);

/// How `connect_worker` tries again after a try fails.
struct retry_policy {
  /// Tries at most this many times.
  int attempts = 1;
  /// What one try may take.
  std::chrono::milliseconds try_timeout{2000};
  /// No try starts later than this after the first (0: `attempts` alone
  /// bounds them).
  std::chrono::milliseconds within{0};
  /// Whether any failure is tried again -- a task still starting refuses
  /// connections -- after a pause that doubles from 20 ms to 500 ms;
  /// else only a handshake that timed out (`timed_out`), at once.
  bool any_failure = false;
};

/// Tells `connect_worker`'s actor to try again (its own timer).
using try_again_atom = caf::atom_constant<caf::atom("tryagain")>;

/// What `connect_worker` makes: asked `connect_atom` once, it answers the
/// worker, or the error of its last try, then quits.
using worker_connection
  = caf::typed_actor<caf::replies_to<caf::connect_atom>::with<worker_actor>,
                     caf::reacts_to<try_again_atom>>;

/// Connects to the worker published at `host:port` (over TLS when `tls`),
/// trying again as `retry` says: the one way this runtime reaches a peer
/// -- a client starting a cluster, a worker linking to its peers, a
/// master reconnecting to a restarted worker, a collective finding its
/// members. Ask the actor it returns for the outcome, without a timeout
/// of your own (its tries are bounded).
worker_connection connect_worker(caf::actor_system& sys, std::string host,
                                 uint16_t port, bool tls, retry_policy retry);

/// What `err`, an answer of `connect_worker`'s actor, says: its status
/// when it is one of the runtime's, else CAF's words.
std::string connect_error_text(caf::actor_system& sys, const caf::error& err);

} // namespace actorflow::actors
