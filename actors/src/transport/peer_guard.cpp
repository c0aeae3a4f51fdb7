#include "transport/peer_guard.hpp"

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/network/multiplexer.hpp>
#include <caf/local_actor.hpp>

#include "actorflow/core/logging.hpp"

namespace actorflow::actors::detail {

void disconnect_node(caf::actor_system& sys, const caf::node_id& node) {
  if (node == caf::node_id{} || node == sys.node())
    return;
  auto& mm = sys.middleman();
  auto basp = mm.named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  if (!basp)
    return;
  // The broker's state belongs to the I/O thread, which runs this between
  // two of the broker's own turns. The steps are CAF's own for a node past
  // its connection timeout (basp_broker.cpp): forget the connection's
  // state, whose proxies go down, then close the socket.
  mm.backend().post([basp, node] {
    auto* broker = static_cast<caf::io::basp_broker*>(
      caf::actor_cast<caf::abstract_actor*>(basp));
    if (broker->getf(caf::abstract_actor::is_terminated_flag))
      return;
    auto conn = broker->instance.tbl().lookup_direct(node);
    if (!conn)
      return;
    broker->connection_cleanup(*conn, caf::sec::malformed_basp_message);
    broker->close(*conn);
  });
}

bool refuse_malformed(caf::local_actor* self, const core::status& wire_error) {
  if (wire_error.is_ok())
    return false;
  const auto& sender = self->current_sender();
  if (sender == nullptr || sender->node() == self->node()) {
    core::log().warn("{} dropped a {} from an unknown sender", self->name(),
                     wire_error.message());
    return true;
  }
  core::log().warn("{} disconnects node {}, which sent a {}", self->name(),
                   caf::to_string(sender->node()), wire_error.message());
  disconnect_node(self->system(), sender->node());
  return true;
}

} // namespace actorflow::actors::detail
