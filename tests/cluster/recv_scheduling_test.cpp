// Recv scheduling between worker processes (issue 39): with
// `session_options::schedule_recvs` a value made early on one task and
// needed late on another leaves only when the receiver is about to need
// it, and the step computes what it computed before.

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "cluster_fixture.hpp"

using namespace actorflow;
using namespace actorflow::test;
using core::dtype;

// x (4 MiB) is filled on task 0 as the step starts; task 1 runs a chain of
// eight 256x256 products before the one node that reads x. Scheduled, x's
// Send starts only after the chain's seventh product has ended on task 1.
TEST_F(cluster, scheduled_recvs_leave_when_the_receiver_nears_their_consumer) {
  constexpr int layers = 8;
  graph::scope s{client_->context().ops()};
  auto here = s.with_device(task0);
  auto far = s.with_device(task1);
  // Variables: constants would be folded away.
  auto filled
    = [](const graph::scope& at, std::vector<int64_t> dims, float value) {
        return graph::variable(
          at, graph::fill(at, std::move(dims), graph::constant(at, value)));
      };
  // Read on task 0: a reference is read where it is sent, when it is.
  auto x
    = graph::identity(here.sub("read"), filled(here.sub("x"), {1 << 20}, 0.5f));
  auto m = filled(far.sub("m"), {256, 256}, 0.004f);
  auto y = filled(far.sub("y0"), {256, 256}, 1.0f);
  std::vector<std::string> products;
  for (int i = 1; i <= layers; ++i) {
    auto at = far.sub("layer" + std::to_string(i));
    auto p = graph::matmul(at, y, m);
    products.push_back(p.node_name());
    y = graph::tanh(at, p);
  }
  auto out = graph::add(far.sub("out"), graph::reduce_sum(far, y, {0, 1}),
                        graph::reduce_sum(far.sub("r"), x, {0}));
  auto init = s.initializer().name;
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  std::vector<tensor> want;
  for (bool scheduled : {false, true}) {
    SCOPED_TRACE(scheduled ? "scheduled" : "not scheduled");
    actors::session_options o;
    o.schedule_recvs = scheduled;
    actors::session sess{*client_, o};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> none;
    ASSERT_TRUE(sess.run({}, {}, {init}, &none).is_ok());
    actors::run_options opts;
    opts.trace = actors::trace_level::full;
    actors::run_metadata md;
    std::vector<tensor> got;
    auto st = sess.run(opts, {}, {out.name()}, {}, &got, &md);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    if (!scheduled) {
      want = got;
      continue;
    }
    EXPECT_EQ(got, want);
    int64_t sent = -1, seventh = -1;
    for (const auto& dev : md.stats.devices)
      for (const auto& n : dev.nodes) {
        if (dev.device == task0 && n.op == "_Send"
            && n.tensor_name.find(x.node_name()) != std::string::npos)
          sent = n.start_us;
        if (dev.device == task1 && n.node == products[layers - 2])
          seventh = n.end_us;
      }
    ASSERT_GE(sent, 0) << "no Send of " << x.node_name() << " in the trace";
    ASSERT_GE(seventh, 0) << "no " << products[layers - 2] << " in the trace";
    EXPECT_GE(sent, seventh);
    // The request travelled back: a control Send from task 1 to task 0.
    int requests = 0;
    for (const auto& [node, device] : md.placement)
      requests += device == task1 && node.rfind("_ctrl_", 0) == 0;
    EXPECT_EQ(requests, 1);
  }
}
