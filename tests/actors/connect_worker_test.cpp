// connect_worker, the one way the runtime reaches a peer's worker: it
// finds a published worker, says what is there when it is not one, and
// tries again only as its retry policy says, within its bounds.

#include <chrono>

#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <gtest/gtest.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/engine.hpp"
#include "common/free_port.hpp"
#include "transport/worker_link.hpp"
#include "transport/worker_protocol.hpp"

using namespace actorflow;
using namespace std::chrono_literals;

namespace {

actors::engine_options networked() {
  actors::engine_options o;
  o.network = true;
  o.threads_per_device = 1;
  o.scheduler_threads = 2;
  return o;
}

/// What connect_worker answers, and how long it took.
struct outcome {
  bool ok = false;
  std::string error;
  std::chrono::milliseconds took{0};
};

outcome connect(actors::engine& e, uint16_t port, actors::retry_policy retry) {
  auto& sys = e.system();
  caf::scoped_actor self{sys};
  outcome out;
  auto start = std::chrono::steady_clock::now();
  self
    ->request(actors::connect_worker(sys, "127.0.0.1", port, false, retry),
              caf::infinite, caf::connect_atom::value)
    .receive([&](const actors::worker_actor& w) { out.ok = bool(w); },
             [&](caf::error& err) {
               out.error = actors::connect_error_text(sys, err);
             });
  out.took = std::chrono::duration_cast<std::chrono::milliseconds>(
    std::chrono::steady_clock::now() - start);
  return out;
}

} // namespace

TEST(connect_worker, finds_a_published_worker) {
  actors::engine e{networked()};
  ASSERT_TRUE(e.init_status().is_ok()) << e.init_status().to_string();
  uint16_t port = 0;
  ASSERT_TRUE(actors::serve_worker(e, "127.0.0.1", 0, &port).is_ok());
  auto r = connect(e, port, {});
  EXPECT_TRUE(r.ok) << r.error;
}

TEST(connect_worker, names_what_is_published_when_it_is_no_worker) {
  actors::engine e{networked()};
  ASSERT_TRUE(e.init_status().is_ok()) << e.init_status().to_string();
  // (With an argument: CAF 0.17.6 binds a null reference for a function
  // actor spawned without any, which UBSan reports.)
  auto other = e.system().spawn(
    [](caf::event_based_actor*, int n) -> caf::behavior {
      return {[n](int x) { return x + n; }};
    },
    1);
  auto port = e.system().middleman().publish(other, 0, "127.0.0.1", true);
  ASSERT_TRUE(port) << e.system().render(port.error());
  auto r = connect(e, *port, {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("not an actorflow worker"), std::string::npos)
    << r.error;
  caf::anon_send_exit(other, caf::exit_reason::user_shutdown);
}

TEST(connect_worker, a_refused_port_fails_at_once_unless_told_to_retry) {
  actors::engine e{networked()};
  ASSERT_TRUE(e.init_status().is_ok()) << e.init_status().to_string();
  auto port = test::free_port();
  ASSERT_GT(port, 0);
  // Only handshakes that time out are tried again by default: a refusal
  // ends it on the first try.
  actors::retry_policy once;
  once.attempts = 5;
  auto r = connect(e, port, once);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
  EXPECT_LT(r.took, 1000ms) << r.error;
  // A task still starting refuses too: with any_failure it is tried with
  // pauses (20, 40, 80, ... ms) until `within` has passed, then given up.
  actors::retry_policy patient;
  patient.attempts = 1000;
  patient.within = 300ms;
  patient.any_failure = true;
  r = connect(e, port, patient);
  EXPECT_FALSE(r.ok);
  EXPECT_GE(r.took, 100ms) << r.error; // 20 + 40 + 80 at least
  EXPECT_LT(r.took, 5000ms) << r.error;
}
