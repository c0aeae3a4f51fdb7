// A team that already runs a CAF actor system embeds actorflow in it.

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include "actorflow/actors/engine.hpp"
#include "actorflow/core/caf_error.hpp"
#include "actorflow/graph/builder_ops.hpp"

using namespace actorflow;
using core::dtype;

TEST(embedding, user_actors_request_runs_from_a_session_actor) {
  caf::actor_system_config cfg;
  actors::engine::add_message_types(cfg);
  caf::actor_system sys{cfg};
  {
    actors::engine e{sys};
    ASSERT_TRUE(e.init_status().is_ok());
    auto session = e.spawn_session();
    graph::scope s;
    auto x = graph::placeholder(s.sub("x"), dtype::float32, {2});
    auto y = graph::relu(s.sub("y"), x);
    ASSERT_TRUE(s.ok());
    caf::scoped_actor self{sys};
    self
      ->request(session, caf::infinite, actors::extend_atom::value,
                s.graph_def())
      .receive([](actors::done_atom) {},
               [](caf::error& err) { FAIL() << caf::to_string(err); });
    // A user's own event-based actor asks for a step and forwards the answer.
    // (What it needs is passed to spawn, not captured: CAF 0.17 binds a
    // reference to a null argument tuple for a function actor spawned
    // without arguments, which UBSan reports.)
    auto client = sys.spawn(
      [](caf::event_based_actor* a, actors::session_actor session,
         std::string fetch) -> caf::behavior {
        return {[a, session, fetch](float v) -> caf::result<float> {
          auto rp = a->make_response_promise<float>();
          actors::run_request req{
            {{"x", core::tensor::from_vector<float>({2}, {v, -v})}},
            {fetch},
            {}};
          a->request(session, caf::infinite, actors::run_atom::value, req)
            .then(
              [rp](actors::run_result& r) mutable {
                rp.deliver(r.outputs[0].flat<float>()(0)
                           + r.outputs[0].flat<float>()(1));
              },
              [rp](caf::error& err) mutable { rp.deliver(err); });
          return rp;
        }};
      },
      session, y.name());
    self->request(client, caf::infinite, 3.0f)
      .receive([](float sum) { EXPECT_EQ(sum, 3.0f); },
               [](caf::error& err) { FAIL() << caf::to_string(err); });
    // Errors come back as caf::errors of category actorflow, rendered by
    // the registered renderer.
    actors::run_request bad{{}, {y.name()}, {}};
    self->request(session, caf::infinite, actors::run_atom::value, bad)
      .receive([](actors::run_result&) { FAIL() << "expected an error"; },
               [&](caf::error& err) {
                 EXPECT_EQ(err.category(), core::error_category);
                 auto st = core::from_error(err);
                 EXPECT_EQ(st.node(), "x");
                 EXPECT_NE(sys.render(err).find("must feed"),
                           std::string::npos);
               });
    self->send_exit(client, caf::exit_reason::user_shutdown);
  }
}
