// A CAF peer that passes the handshake (same wire version; in the TLS
// pass, with the clients' certificate: a peer the cluster trusts) and
// then sends bytes that are no message of ours, under the names of
// actorflow's wire messages: the worker disconnects that peer at the
// first, and serves the others on.

#include <chrono>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <gtest/gtest.h>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "cluster_fixture.hpp"
#include "transport/worker_protocol.hpp"

namespace {

/// Bytes a peer sends under the name of one of actorflow's wire messages
/// (`Kind` tells them apart): CAF writes them as the same length-prefixed
/// sequence the real encoding is, so the worker decodes them as that
/// message.
template <int Kind>
struct forged {
  std::vector<char> bytes;
};

using forged_run_step = forged<0>;
using forged_partition_set = forged<1>;
using forged_value = forged<2>;

template <class Inspector, int Kind>
typename Inspector::result_type inspect(Inspector& f, forged<Kind>& x) {
  return f(caf::meta::type_name("forged"), x.bytes);
}

} // namespace

namespace actorflow::test {

namespace {

/// The worker's interface with the forged messages in place of the real
/// ones: CAF compares interfaces by type names when it connects.
using forged_worker = caf::typed_actor<
  caf::replies_to<actors::devices_atom>::with<std::vector<std::string>>,
  caf::replies_to<actors::register_atom,
                  forged_partition_set>::with<actors::registration>,
  caf::replies_to<actors::route_atom, uint64_t,
                  actors::recv_table>::with<actors::done_atom>,
  caf::replies_to<forged_run_step>::with<actors::step_report>,
  caf::replies_to<actors::deregister_atom, uint64_t>::with<actors::done_atom>,
  caf::reacts_to<actors::abort_atom, uint64_t>,
  caf::replies_to<actors::idle_atom>::with<actors::done_atom>,
  caf::replies_to<actors::collective_atom>::with<actors::recv_entry>>;

/// A peer's actor system that names the forged messages as actorflow's;
/// with `pki`, it speaks TLS with the clients' certificate.
struct forger_config : caf::actor_system_config {
  explicit forger_config(const test_pki* pki) {
    add_error_category(core::error_category, core::render_error);
    add_message_type<forged_run_step>("actorflow.run_step");
    add_message_type<forged_partition_set>("actorflow.partition_set");
    add_message_type<forged_value>("actorflow.value");
    add_message_type<actors::registration>("actorflow.registration");
    add_message_type<actors::recv_entry>("actorflow.recv_entry");
    add_message_type<actors::recv_table>("actorflow.recv_table");
    add_message_type<actors::step_report>("actorflow.step_report");
    set("middleman.app-identifiers",
        std::vector<std::string>{actors::wire_identifier});
    load<caf::io::middleman>();
    if (pki != nullptr) {
      load<caf::openssl::manager>();
      openssl_cafile = pki->path("ca.pem");
      openssl_certificate = pki->path("client.pem");
      openssl_key = pki->path("client.key");
    }
  }
};

/// Bytes no encoder of ours writes: a size that is no multiple of 8,
/// words of noise (a segment table of a billion segments), and a segment
/// table of one empty segment followed by zeros.
const std::vector<std::string>& garbage() {
  static const std::vector<std::string> cases{
    std::string(7, 'x'), std::string(64, '\x5a'), std::string(24, '\0')};
  return cases;
}

/// Waits for the worker `self` monitors to go down; the reason.
std::string wait_for_disconnect(caf::scoped_actor& self) {
  std::string reason = "(no disconnect within 10 s)";
  self->receive(
    [&](caf::down_msg& dm) { reason = self->system().render(dm.reason); },
    caf::after(std::chrono::seconds{10}) >> [] {});
  return reason;
}

/// A small tensor from task 0 to task 1: the workers still serve.
built a_product(graph::scope& s, const std::string& a, const std::string& b) {
  auto x = graph::constant(s.sub("x").with_device(a),
                           tensor::from_vector<float>({3}, {1.5f, -2.f, 4.f}));
  auto y = graph::mul(s.sub("y").with_device(b), x, x);
  return built{{y.name()}, {}, {}, {}};
}

} // namespace

class forged_peer : public cluster {
protected:
  /// Connects a fresh forging peer to task 1 and sends it `what` for each
  /// case of garbage by way of `send`; expects the worker to close the
  /// connection (without it, the peer's handle would stay up: the worker
  /// would drop the message and serve the peer on).
  template <class Send>
  void expect_disconnected(const char* what, Send send) {
    for (const auto& bytes : garbage()) {
      SCOPED_TRACE(std::string{what} + ", " + std::to_string(bytes.size())
                   + " bytes");
      forger_config cfg{pki_};
      caf::actor_system sys{cfg};
      const auto& task = procs_->spec().tasks[1];
      auto worker
        = tls()
            ? caf::openssl::remote_actor<forged_worker>(sys, task.host,
                                                        task.port)
            : sys.middleman().remote_actor<forged_worker>(task.host, task.port);
      ASSERT_TRUE(worker) << sys.render(worker.error());
      caf::scoped_actor self{sys};
      self->monitor(*worker);
      send(self, *worker, std::vector<char>{bytes.begin(), bytes.end()});
      EXPECT_EQ(wait_for_disconnect(self),
                "exit_reason(remote_link_unreachable)");
    }
  }
};

TEST_F(forged_peer, a_malformed_run_step_disconnects_it) {
  expect_disconnected("run step",
                      [](caf::scoped_actor& self, const forged_worker& worker,
                         std::vector<char> bytes) {
                        self->send(worker, forged_run_step{std::move(bytes)});
                      });
  expect_same(a_product, 1);
}

TEST_F(forged_peer, a_malformed_partition_set_disconnects_it) {
  expect_disconnected("partition set",
                      [](caf::scoped_actor& self, const forged_worker& worker,
                         std::vector<char> bytes) {
                        self->send(worker, actors::register_atom::value,
                                   forged_partition_set{std::move(bytes)});
                      });
  expect_same(a_product, 1);
}

TEST_F(forged_peer, a_malformed_value_disconnects_it) {
  // To the worker's collective actor, which takes the chunks of
  // all-reduces from other workers as values.
  expect_disconnected("value", [](caf::scoped_actor& self,
                                  const forged_worker& worker,
                                  std::vector<char> bytes) {
    caf::strong_actor_ptr collectives;
    self
      ->request(worker, std::chrono::seconds{10},
                actors::collective_atom::value)
      .receive([&](actors::recv_entry& e) { collectives = e.actor; },
               [](caf::error& err) { ADD_FAILURE() << to_string(err); });
    ASSERT_NE(collectives, nullptr);
    self->send(caf::actor_cast<caf::actor>(collectives),
               forged_value{std::move(bytes)});
  });
  expect_same(a_product, 1);
}

} // namespace actorflow::test
