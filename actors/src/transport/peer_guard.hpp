#pragma once

// What a receiver does with a message from another process that did not
// decode: the sender's node is disconnected.

#include <caf/fwd.hpp>

#include "actorflow/core/status.hpp"

namespace actorflow::actors::detail {

/// Closes this process's CAF connection to `node`, as CAF itself does with
/// a node past its connection timeout: the node's proxies here go down
/// (monitors see `remote_link_unreachable`) and nothing more it sends is
/// read; it may connect again. Does nothing for this process's own node
/// or a node it has no direct connection to. Safe from any thread: the
/// connection is closed on the middleman's I/O thread.
void disconnect_node(caf::actor_system& sys, const caf::node_id& node);

/// Whether `wire_error` says that the message `self` is handling came from
/// another process and did not decode. If so, `self` logs why, naming the
/// sender's node, and disconnects that node: a peer that sends what our
/// decoders refuse is broken or hostile, and it is not read from again.
bool refuse_malformed(caf::local_actor* self, const core::status& wire_error);

} // namespace actorflow::actors::detail
