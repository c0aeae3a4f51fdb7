#pragma once

#include <cstdint>
#include <set>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/fwd.hpp>
#include <caf/io/middleman_actor.hpp>

#include "actorflow/actors/protocol.hpp"
#include "actorflow/core/status.hpp"

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

} // namespace actorflow::actors
