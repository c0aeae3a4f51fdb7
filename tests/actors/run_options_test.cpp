// A step stops as a whole: at its first error, at its run's deadline, or
// when another thread cancels it -- loops that would never end included --
// and the worker drops everything of it.

#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "actorflow/actorflow.hpp"
#include "common/worker_idle.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using namespace std::chrono_literals;

namespace {

/// A loop counting i = 0, 1, 2, ... while i >= 0: it never ends by itself.
graph::output endless_loop(const graph::scope& s) {
  return graph::while_loop(
    s.sub("endless"),
    [](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::greater_equal(c, v[0],
                                  graph::constant(c, 0.0, dtype::int64));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto one = graph::constant(b, 1.0, dtype::int64);
      return std::vector<graph::output>{graph::add(b, v[0], one)};
    },
    {graph::constant(s.sub("i0"), 0.0, dtype::int64)})[0];
}

/// Whether the engine's own worker runs no step (within 30 s).
bool worker_idle(actors::engine& e) {
  return test::worker_idle(
    e.system(), caf::actor_cast<actors::worker_actor>(e.local_worker()));
}

class run_options : public ::testing::Test {
protected:
  actors::engine e;
  graph::scope s{e.context().ops()};
};

} // namespace

TEST_F(run_options, the_first_error_stops_a_loop_that_would_never_end) {
  // TensorFlow's executor stops a step at its first error; so does the
  // worker, loops included (before, the failing check and the endless loop
  // left the step running for ever).
  auto i = endless_loop(s);
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {});
  auto checked = graph::check_numerics(s.sub("checked"), x, "x is bad");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  for (int k = 0; k < 3; ++k) {
    auto st = sess.run({{x.name(), tensor::scalar(std::nanf(""))}},
                       {i.name(), checked.name()}, {}, &out);
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
    EXPECT_EQ(st.node(), checked.node_name()) << st.to_string();
    EXPECT_TRUE(worker_idle(e));
  }
  ASSERT_TRUE(
    sess.run({{x.name(), tensor::scalar(1.0f)}}, {checked.name()}, {}, &out)
      .is_ok());
}

TEST_F(run_options, a_deadline_stops_the_step_and_the_session_goes_on) {
  auto i = endless_loop(s);
  auto two = graph::constant(s.sub("two"), 2.0f);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  actors::run_options opts;
  opts.timeout = 50ms;
  for (int k = 0; k < 3; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    auto st = sess.run(opts, {}, {i.name()}, {}, &out);
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(st.code(), core::errc::deadline_exceeded) << st.to_string();
    EXPECT_GE(took, 50ms);
    EXPECT_LT(took, 10s);
    // Every worker (here the one) dropped the step: it ran no more.
    EXPECT_TRUE(worker_idle(e));
  }
  // A deadline the step meets changes nothing.
  opts.timeout = 60s;
  ASSERT_TRUE(sess.run(opts, {}, {two.name()}, {}, &out).is_ok());
  EXPECT_EQ(out[0].scalar_value<float>(), 2.0f);
  opts.timeout = -1ms;
  EXPECT_EQ(sess.run(opts, {}, {two.name()}, {}, &out).code(),
            core::errc::invalid_argument);
}

TEST_F(run_options, a_run_is_cancelled_from_another_thread) {
  // The loop puts each i into a queue of capacity 1: a dequeue by another
  // run shows that the loop runs; then the runs given the cancellation
  // stop, the one in flight and later ones.
  graph::queue::options qo{{dtype::int64}, {{}}, 1};
  auto q = graph::queue::fifo(s.sub("q"), qo);
  auto i = graph::while_loop(
    s.sub("producer"),
    [](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::greater_equal(c, v[0],
                                  graph::constant(c, 0.0, dtype::int64));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto put = q.enqueue(b.sub("put"), {v[0]});
      auto one = graph::constant(b, 1.0, dtype::int64);
      return std::vector<graph::output>{
        graph::add(b.with_control_dependencies({put}), v[0], one)};
    },
    {graph::constant(s.sub("i0"), 0.0, dtype::int64)})[0];
  auto take = q.dequeue(s.sub("take"))[0];
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  actors::cancellation stop;
  actors::run_options opts;
  opts.cancel = &stop;
  auto producer = std::async(std::launch::async, [&] {
    std::vector<tensor> values;
    return sess.run(opts, {}, {i.name()}, {}, &values);
  });
  std::vector<tensor> out;
  for (int64_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(sess.run({}, {take.name()}, {}, &out).is_ok());
    EXPECT_EQ(out[0].scalar_value<int64_t>(), k);
  }
  stop.cancel();
  EXPECT_TRUE(stop.cancelled());
  auto st = producer.get();
  EXPECT_EQ(st.code(), core::errc::cancelled) << st.to_string();
  EXPECT_TRUE(worker_idle(e));
  // Cancelled for good: a later run given it fails before it starts.
  st = sess.run(opts, {}, {i.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::cancelled) << st.to_string();
}

TEST_F(run_options, on_wait_is_called_while_the_run_is_in_flight) {
  // The caller's hook (the Python package's Ctrl-C check) runs on the
  // calling thread every poll_interval and may cancel the run.
  auto i = endless_loop(s);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  actors::cancellation stop;
  actors::run_options opts;
  opts.cancel = &stop;
  opts.poll_interval = 5ms;
  auto caller = std::this_thread::get_id();
  int calls = 0;
  bool same_thread = true;
  opts.on_wait = [&] {
    same_thread = same_thread && std::this_thread::get_id() == caller;
    if (++calls == 3)
      stop.cancel();
  };
  std::vector<tensor> out;
  auto st = sess.run(opts, {}, {i.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::cancelled) << st.to_string();
  // Cancelled at the third call; the abort may take more polls to come
  // back (it did under the sanitizers).
  EXPECT_GE(calls, 3);
  EXPECT_TRUE(same_thread);
  EXPECT_TRUE(worker_idle(e));
  // A quick run answers before the first poll.
  actors::session fresh{e};
  graph::scope t{e.context().ops()};
  auto c = graph::constant(t.sub("c"), 1.0, dtype::float32);
  ASSERT_TRUE(fresh.extend(t.graph_def()).is_ok());
  calls = 0;
  actors::run_options quick;
  quick.poll_interval = 10s;
  quick.on_wait = [&] { ++calls; };
  ASSERT_TRUE(fresh.run(quick, {}, {c.name()}, {}, &out).is_ok());
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(out[0].scalar_value<float>(), 1.0f);
}
