#pragma once

// Internal: the collectives of a process, as an actor behind
// ops::collective_executor.

#include <chrono>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>

#include "actorflow/ops/collective.hpp"
#include "runtime_messages.hpp"

namespace actorflow::actors {

class bulk_transport;

/// Spawns the collective actor of the process whose devices belong to
/// `task` (`/job:J/task:T`). It runs the all-reduces of the process's
/// members as rings: a tensor of n members is cut into n chunks, each
/// member sends one chunk to the next and adds the one it receives from
/// the one before, n-1 times (reduce-scatter), then passes the finished
/// chunks on n-1 times (all-gather) -- 2(n-1)/n of the tensor in and out
/// of each member, whatever n. Chunks from other processes arrive as
/// `value_msg`s, through `bulk` when they are large (`*endpoint` says
/// where, for the worker's `collective_atom`) and through CAF otherwise.
/// It finds the other members' processes among the workers the sessions
/// tell it of (`peers_atom`), connects to each directly (TLS with `tls`)
/// and asks it for its endpoint within `timeout`, and watches them: one that
/// goes away fails the all-reduces it is a member of. A member that fails an
/// all-reduce tells the others, whose runs of it fail too, naming it.
collective_actor spawn_collectives(caf::actor_system& sys, std::string task,
                                   std::shared_ptr<bulk_transport> bulk,
                                   bool tls, std::chrono::milliseconds timeout,
                                   recv_entry* endpoint);

/// The ops::collective_executor kernels see: each call a message to `hdl`.
std::shared_ptr<ops::collective_executor>
make_collective_executor(collective_actor hdl);

} // namespace actorflow::actors
