#include "actorflow/actors/session.hpp"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/ops/kernel_context.hpp"
#include "actorflow/ops/shape_context.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

/// Figure 1 from golden inputs, with W and x on `dev_a`, b and the layer on
/// `dev_b`.
struct figure_one {
  graph::scope s;
  graph::output x, relu;
  std::string init_w, init_b;

  figure_one(const std::map<std::string, tensor>& golden,
             const std::string& dev_a, const std::string& dev_b) {
    auto a = s.with_device(dev_a);
    auto b = s.with_device(dev_b);
    auto W = graph::variable(a.sub("W"), {16, 32}, dtype::float32);
    auto bias = graph::variable(b.sub("b"), {16, 1}, dtype::float32);
    x = graph::placeholder(a.sub("x"), dtype::float32, {32, -1});
    relu = graph::relu(b.sub("layer"),
                       graph::add(b, graph::matmul(a, W, x), bias));
    init_w = graph::assign(a.sub("init_W"), W,
                           graph::constant(a, golden.at("fig1_W")))
               .node_name();
    init_b = graph::assign(b.sub("init_b"), bias,
                           graph::constant(b, golden.at("fig1_b")))
               .node_name();
  }
};

tensor run_figure_one(actors::engine& e, const std::string& dev_a,
                      const std::string& dev_b) {
  auto golden = test::load_golden("spine.txt");
  figure_one f{golden, dev_a, dev_b};
  EXPECT_TRUE(f.s.ok()) << f.s.status().to_string();
  actors::session sess{e};
  EXPECT_TRUE(sess.extend(f.s.graph_def()).is_ok());
  EXPECT_TRUE(sess.run({}, {}, {f.init_w, f.init_b}, nullptr).is_ok());
  std::vector<tensor> out;
  auto st
    = sess.run({{f.x.name(), golden.at("fig1_x")}}, {f.relu.name()}, {}, &out);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return out.empty() ? tensor{} : out[0];
}

class session_test : public ::testing::Test {
protected:
  actors::engine e;
};

} // namespace

TEST_F(session_test, figure_one_matches_numpy_on_one_device_and_split) {
  auto golden = test::load_golden("spine.txt");
  auto one = run_figure_one(e, "cpu:0", "cpu:0");
  test::expect_near(one, golden.at("fig1_relu"), 1e-5f);
  auto split = run_figure_one(e, "cpu:0", "cpu:1");
  // The same kernels on the same values: identical, not just close.
  EXPECT_TRUE(split.equals(one));
}

TEST_F(session_test, figure_six_nodes_outside_the_signature_never_run) {
  // a -> b -> c -> f; d and e count their runs in variables.
  graph::scope s;
  auto a = graph::constant(s.sub("a"), 1.0);
  auto b = graph::identity(s.sub("b"), a);
  auto c = graph::identity(s.sub("c"), b);
  auto f = graph::relu(s.sub("f"), c);
  auto d_count = graph::variable(s.sub("d_count"), {}, dtype::float32);
  auto e_count = graph::variable(s.sub("e_count"), {}, dtype::float32);
  auto zero = graph::constant(s.sub("zero"), 0.0);
  auto init_d = graph::assign(s.sub("init_d"), d_count, zero);
  auto init_e = graph::assign(s.sub("init_e"), e_count, zero);
  auto d = graph::assign_add(s.sub("d"), d_count, b, true);
  auto e_node
    = graph::assign_add(s.sub("e"), e_count, graph::add(s, c, d), true);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  ASSERT_TRUE(
    sess.run({}, {}, {init_d.node_name(), init_e.node_name()}, nullptr)
      .is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(
    sess.run({{b.name(), tensor::scalar(-4.0f)}}, {f.name()}, {}, &out)
      .is_ok());
  EXPECT_EQ(out[0].scalar_value<float>(),
            0.0f); // relu(-4): the feed replaced a
  ASSERT_TRUE(sess.run({}, {d_count.name(), e_count.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<float>(), 0.0f);
  EXPECT_EQ(out[1].scalar_value<float>(), 0.0f);
  // Asked for, they do run.
  ASSERT_TRUE(sess.run({}, {}, {e_node.node_name()}, nullptr).is_ok());
  ASSERT_TRUE(sess.run({}, {d_count.name(), e_count.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<float>(), 1.0f);
  EXPECT_EQ(out[1].scalar_value<float>(), 2.0f);
}

TEST_F(session_test, concurrent_runs_get_their_own_results) {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {4});
  auto y = graph::relu(s, graph::mul(s, x, graph::constant(s, 2.0))
                            + graph::constant(s, 1.0));
  ASSERT_TRUE(s.ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        float v = static_cast<float>(t * 100 + i);
        std::vector<tensor> out;
        auto st
          = sess.run({{"x", tensor::from_vector<float>({4}, {v, v, v, -v})}},
                     {y.name()}, {}, &out);
        if (!st.is_ok()) {
          ++failed;
          continue;
        }
        auto got = out[0].flat<float>();
        if (got(0) != 2 * v + 1 || got(3) != (v == 0 ? 1.0f : 0.0f))
          ++wrong;
      }
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(session_test,
       a_kernel_error_names_node_op_device_and_the_next_step_works) {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), dtype::float32);
  auto w = graph::constant(s.sub("w"),
                           tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}));
  auto y = graph::matmul(s.with_device("cpu:1").sub("mm"), w, x);
  ASSERT_TRUE(s.ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st
    = sess.run({{"x", tensor{dtype::float32, {3, 1}}}}, {y.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "mm/MatMul");
  EXPECT_EQ(st.op(), "MatMul");
  EXPECT_EQ(st.device(), "/job:localhost/task:0/device:cpu:1");
  st = sess.run({{"x", tensor::from_vector<float>({2, 1}, {1, 1})}}, {y.name()},
                {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0].flat<float>()(0), 3.0f);
  EXPECT_EQ(out[0].flat<float>()(1), 7.0f);
}

TEST_F(session_test, a_failure_on_the_sending_device_completes_the_receiver) {
  // x (cpu:0) fails for want of a feed; its consumer on cpu:1 waits in a
  // Recv, which gets the failure instead of a value, so the step ends on
  // both devices. A second, healthy branch on cpu:1 still runs.
  graph::scope s;
  auto x
    = graph::placeholder(s.with_device("cpu:0").sub("x"), dtype::float32, {2});
  auto y = graph::relu(s.with_device("cpu:1").sub("y"), x);
  auto z
    = graph::relu(s.with_device("cpu:1").sub("z"), graph::constant(s, 3.0));
  ASSERT_TRUE(s.ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  for (int i = 0; i < 3; ++i) {
    auto st = sess.run({}, {y.name(), z.name()}, {}, &out);
    EXPECT_EQ(st.code(), core::errc::invalid_argument);
    EXPECT_EQ(st.node(), "x");
    EXPECT_EQ(st.device(), "/job:localhost/task:0/device:cpu:0");
    ASSERT_TRUE(sess
                  .run({{"x", tensor::from_vector<float>({2}, {-1, 2})}},
                       {y.name(), z.name()}, {}, &out)
                  .is_ok());
    EXPECT_EQ(out[0].flat<float>()(1), 2.0f);
    EXPECT_EQ(out[1].scalar_value<float>(), 3.0f);
  }
}

TEST_F(session_test, constants_reach_their_consumers_without_messages) {
  // Inputs from Consts are bound when a partition is instantiated; these
  // are the shapes that binding must get right.
  graph::scope s;
  auto two = graph::constant(s.sub("two"), 2.0);
  auto three = graph::constant(s.sub("three"), 3.0);
  auto sum = graph::add(s.sub("sum"), two, three); // only bound inputs
  auto gate = graph::no_op(s.sub("gate"));
  auto gated = graph::identity(s.with_control_dependencies({gate}).sub("gated"),
                               three); // bound + control
  auto remote = graph::mul(s.with_device("cpu:1").sub("remote"), two, sum);
  ASSERT_TRUE(s.ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(sess
                  .run({},
                       {sum.name(), gated.name(), remote.name(), two.name()},
                       {}, &out)
                  .is_ok());
    EXPECT_EQ(out[0].scalar_value<float>(), 5.0f);
    EXPECT_EQ(out[1].scalar_value<float>(), 3.0f);
    EXPECT_EQ(out[2].scalar_value<float>(), 10.0f);
    EXPECT_EQ(out[3].scalar_value<float>(), 2.0f);
  }
}

TEST_F(session_test, bad_requests_get_clear_errors) {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2});
  auto y = graph::relu(s.sub("y"), x);
  auto v = graph::variable(s.sub("v"), {2}, dtype::float32);
  auto r = graph::relu(s.sub("r"), v);
  ASSERT_TRUE(s.ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  // A missing feed.
  auto st = sess.run({}, {y.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "x");
  EXPECT_EQ(st.op(), "Placeholder");
  EXPECT_NE(st.message().find("must feed"), std::string::npos);
  // A feed of the wrong dtype or shape.
  st = sess.run({{"x", tensor{dtype::int32, {2}}}}, {y.name()}, {}, &out);
  EXPECT_NE(st.message().find("has dtype int32"), std::string::npos);
  st = sess.run({{"x", tensor{dtype::float32, {3}}}}, {y.name()}, {}, &out);
  EXPECT_NE(st.message().find("has shape [3]"), std::string::npos);
  // An unknown fetch.
  EXPECT_EQ(sess.run({}, {"nope:0"}, {}, &out).code(), core::errc::not_found);
  // An uninitialised variable.
  st = sess.run({}, {r.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::failed_precondition);
  EXPECT_EQ(st.node(), "r/Relu");
  EXPECT_NE(st.message().find("uninitialized value v"), std::string::npos);
  // An impossible device request.
  graph::scope t;
  graph::constant(t.with_device("cpu:9").sub("far"), 1.0);
  ASSERT_TRUE(sess.extend(t.graph_def()).is_ok());
  st = sess.run({}, {"far/Const"}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "far/Const");
  // A graph that does not validate changes nothing.
  graph::graph bad;
  ASSERT_TRUE(bad.add({"q", "Frobnicate", {}, "", {}}).is_ok());
  EXPECT_EQ(sess.extend(bad).code(), core::errc::not_found);
  ASSERT_TRUE(sess
                .run({{"x", tensor::from_vector<float>({2}, {-1, 1})}},
                     {y.name()}, {}, &out)
                .is_ok());
  EXPECT_EQ(out[0].flat<float>()(1), 1.0f);
}

TEST_F(session_test,
       locked_assign_add_from_eight_concurrent_steps_sums_exactly) {
  graph::scope s;
  auto v = graph::variable(s.sub("v"), {}, dtype::int64);
  auto init
    = graph::assign(s.sub("init"), v, graph::constant(s, 0.0, dtype::int64));
  auto inc = graph::assign_add(s.with_device("cpu:1").sub("inc"), v,
                               graph::constant(s, 1.0, dtype::int64), true);
  ASSERT_TRUE(s.ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  ASSERT_TRUE(sess.run({}, {}, {init.node_name()}, nullptr).is_ok());
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 125; ++i)
        failed += !sess.run({}, {}, {inc.node_name()}, nullptr).is_ok();
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(failed.load(), 0);
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({}, {v.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<int64_t>(), 1000);
}

TEST_F(session_test,
       two_sessions_of_one_engine_share_variables_and_containers_reset) {
  graph::scope s;
  auto v = graph::variable(s.sub("shared"), {}, dtype::float32, "box");
  auto init = graph::assign(s.sub("init"), v, graph::constant(s, 5.0));
  ASSERT_TRUE(s.ok());
  actors::session first{e}, second{e};
  ASSERT_TRUE(first.extend(s.graph_def()).is_ok());
  ASSERT_TRUE(second.extend(s.graph_def()).is_ok());
  ASSERT_TRUE(first.run({}, {}, {init.node_name()}, nullptr).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(second.run({}, {v.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<float>(), 5.0f);
  EXPECT_TRUE(e.context().resources().reset("box"));
  EXPECT_EQ(second.run({}, {v.name()}, {}, &out).code(),
            core::errc::failed_precondition);
}

namespace {

/// A test-only asynchronous kernel: doubles its input on the device's
/// thread pool and completes from there.
class async_double : public ops::basic_kernel {
public:
  explicit async_double(ops::kernel_construction&) {
    // nop
  }

  void compute(ops::kernel_context&) override {
    // never called: is_async
  }

  bool is_async() const noexcept override {
    return true;
  }

  void compute_async(ops::kernel_context& ctx, done_callback done) override {
    ctx.device().schedule([&ctx, done] {
      core::tensor* out = nullptr;
      auto st = ctx.allocate_output(0, ctx.input(0).shape(), &out);
      if (!st.is_ok()) {
        ctx.fail(st);
      } else {
        out->mutable_flat<float>() = ctx.input(0).flat<float>() * 2.0f;
      }
      done();
    });
  }
};

} // namespace

namespace {

/// A test-only kernel whose construction fails, as a kernel rejecting its
/// attrs would.
class refusing_kernel : public ops::basic_kernel {
public:
  explicit refusing_kernel(ops::kernel_construction&) {
    init_ = core::invalid_argument_error("attr 'mode' must be 'fast'");
  }

  void compute(ops::kernel_context&) override {
    // never built
  }
};

} // namespace

TEST_F(session_test, kernel_construction_errors_name_node_op_and_device) {
  auto& rt = e.context();
  ASSERT_TRUE(
    rt.add_op(ops::op_def_builder("TestRefuse").output("y: float")).is_ok());
  rt.add_kernel<refusing_kernel>("TestRefuse", "cpu");
  graph::scope s{rt.ops()};
  auto y = s.add_node("TestRefuse", "refuse", {}, {});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({}, {y[0].name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "refuse");
  EXPECT_EQ(st.op(), "TestRefuse");
  EXPECT_EQ(st.device(), "/job:localhost/task:0/device:cpu:0");
  EXPECT_NE(st.message().find("must be 'fast'"), std::string::npos);
}

TEST_F(session_test, asynchronous_kernels_complete_without_holding_the_actor) {
  auto& rt = e.context();
  ASSERT_TRUE(rt.add_op(ops::op_def_builder("TestAsyncDouble")
                          .input("x: float")
                          .output("y: float")
                          .shape_fn(ops::unchanged_shape))
                .is_ok());
  rt.add_kernel<async_double>("TestAsyncDouble", "cpu");
  graph::scope s{rt.ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {3});
  auto y = s.add_node("TestAsyncDouble", "double", {x}, {});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(
      sess
        .run({{"x", tensor::from_vector<float>({3}, {1, 2, float(i)})}},
             {y[0].name()}, {}, &out)
        .is_ok());
    EXPECT_EQ(out[0].flat<float>()(2), 2.0f * static_cast<float>(i));
  }
}
