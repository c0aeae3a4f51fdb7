// Seeing a run (issue 15): step stats in run_metadata, partition graphs,
// and the Chrome trace written from them, on one process with two
// devices. The cluster suite runs the same checks over two workers.

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

#include "actorflow/actorflow.hpp"
#include "actorflow/actors/chrome_trace.hpp"
#include "common/trace_checks.hpp"

using namespace actorflow;

namespace {

constexpr int64_t n = 1000;

/// Session options that keep the graph's Identity nodes (the identities
/// pass would remove the ones these tests count firings of).
actors::session_options keeping_identities() {
  actors::session_options o;
  EXPECT_TRUE(
    graph::pass_selection::parse("-identities", &o.pass_selection).is_ok());
  return o;
}

} // namespace

TEST(trace, a_traced_run_records_every_firing_of_both_devices) {
  actors::engine e;
  auto md = test::traced_split_run(e, "cpu:0", "cpu:1", n);
  test::expect_split_run_stats(md, "cpu:0", "cpu:1", n);
  EXPECT_EQ(md.stats.process_messages, 0); // one process
  for (const auto& d : md.stats.devices)
    EXPECT_EQ(d.worker, "/job:localhost/task:0");
}

TEST(trace, an_untraced_run_records_nothing) {
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {2});
  auto y = graph::relu(s.sub("y").with_device("cpu:1"), x);
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<core::tensor> out;
  actors::run_metadata md;
  auto st = sess.run({{x.name(), core::tensor{core::dtype::float32, {2}}}},
                     {y.name()}, {}, &out, &md);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_TRUE(md.stats.devices.empty());
  EXPECT_EQ(md.stats.partition_messages, 0);
  EXPECT_TRUE(md.partition_graphs.empty());
  EXPECT_FALSE(md.placement.empty());
}

TEST(trace, the_chrome_trace_of_two_steps_has_its_structure) {
  actors::engine e;
  actors::chrome_trace trace;
  trace.add(test::traced_split_run(e, "cpu:0", "cpu:1", n).stats);
  trace.add(test::traced_split_run(e, "cpu:0", "cpu:1", n).stats);
  ASSERT_EQ(trace.size(), 2u);
  char path[] = "/tmp/actorflow-trace-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  auto st = trace.write(path);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  test::expect_trace_structure(text.str(), 2);
}

TEST(trace, writing_a_trace_where_no_file_can_be_says_where) {
  actors::chrome_trace trace;
  auto st = trace.write("/nonexistent-dir/trace.json");
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("/nonexistent-dir/trace.json"), std::string::npos)
    << st.to_string();
}

// A loop with a cond in its body: the plumbing that only forwards a value
// (LoopCond, the Identities on Switch outputs, the cond's pivot Switch)
// never fires, the rest fires once per iteration, and the result is the
// same. An Identity the user put on a computed value still runs.
TEST(trace, a_loops_forwarding_plumbing_never_fires) {
  constexpr int64_t iterations = 7;
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto limit = graph::placeholder(s.sub("n"), core::dtype::int64, {});
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], limit);
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto big = graph::greater(b, v[1], graph::constant(b, 100.0));
      auto x = graph::cond(
        b, big,
        [&](const graph::scope& t) {
          return std::vector<graph::output>{
            graph::mul(t, v[1], graph::constant(t, 0.0))};
        },
        [&](const graph::scope&) { return std::vector<graph::output>{v[1]}; });
      auto next = graph::identity(b.sub("mine"),
                                  graph::add(b, x[0], graph::constant(b, 2.0)));
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0, core::dtype::int64)), next};
    },
    {graph::constant(s.sub("i0"), 0.0, core::dtype::int64),
     graph::constant(s.sub("x0"), 1.0)});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e, keeping_identities()};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  actors::run_options opts;
  opts.trace = actors::trace_level::full;
  std::vector<core::tensor> out;
  actors::run_metadata md;
  auto st = sess.run(opts, {{limit.name(), core::tensor::scalar(iterations)}},
                     {outs[1].name()}, {}, &out, &md);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_FLOAT_EQ(out[0].scalar_value<float>(), 1.0f + 2.0f * iterations);
  std::map<std::string, int64_t> by_op;
  int64_t mine = 0;
  for (const auto& d : md.stats.devices)
    for (const auto& f : d.nodes) {
      ++by_op[f.op];
      mine += f.node.find("mine") != std::string::npos;
    }
  EXPECT_EQ(by_op["LoopCond"], 0);
  EXPECT_EQ(mine, iterations);
  EXPECT_EQ(by_op["Identity"], iterations) << "only the user's Identity";
  EXPECT_EQ(by_op["Greater"], iterations);
  // The loop's two Switches each iteration and on the way out, the cond's
  // two (its pivot Switch fed only the pivot: gone).
  EXPECT_EQ(by_op["Switch"], 2 * (iterations + 1) + 2 * iterations);
}

// Steps traced at once, in a chain whose every hop passes its only token
// on: a firing is recorded before its value leaves, or a step could end
// (and its collector go) while a node still records into it -- which the
// sanitized build would report.
TEST(trace, concurrent_traced_steps_each_get_their_own_firings) {
  constexpr int nodes = 200;
  constexpr int threads = 4;
  constexpr int runs = 10;
  actors::engine e;
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {8});
  auto y = x;
  for (int i = 0; i < nodes; ++i)
    y = graph::identity(s, y);
  actors::session sess{e, keeping_identities()};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<std::thread> pool;
  std::vector<int> wrong(threads, 0);
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      actors::run_options opts;
      opts.trace = actors::trace_level::full;
      for (int r = 0; r < runs; ++r) {
        std::vector<core::tensor> out;
        actors::run_metadata md;
        auto st = sess.run(
          opts, {{x.name(), core::tensor{core::dtype::float32, {8}}}},
          {y.name()}, {}, &out, &md);
        int identities = 0;
        for (const auto& d : md.stats.devices)
          for (const auto& f : d.nodes)
            identities += f.op == "Identity";
        wrong[static_cast<size_t>(k)] += !st.is_ok() || identities != nodes;
      }
    });
  for (auto& t : pool)
    t.join();
  EXPECT_EQ(wrong, std::vector<int>(threads, 0));
}

namespace {

/// Counts what a session's observer sees.
struct counting_observer : actors::step_observer {
  void on_step(const actors::step_stats& stats,
               const core::status& result) override {
    std::lock_guard<std::mutex> guard{mtx};
    ++steps;
    failed += !result.is_ok();
    for (const auto& d : stats.devices)
      for (const auto& f : d.nodes)
        relus += f.op == "Relu";
  }

  std::mutex mtx;
  int steps = 0;
  int failed = 0;
  int relus = 0;
};

} // namespace

TEST(trace, a_session_observer_sees_every_step_traced) {
  auto observer = std::make_shared<counting_observer>();
  actors::engine e;
  actors::session_options options;
  options.observer = observer;
  actors::session sess{e, options};
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {2});
  auto y = graph::relu(s.sub("y").with_device("cpu:1"), x);
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<core::tensor> out;
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(sess
                  .run({{x.name(), core::tensor{core::dtype::float32, {2}}}},
                       {y.name()}, {}, &out)
                  .is_ok());
  // A failing step is seen too, with its error (a missing feed fails at
  // its Placeholder).
  EXPECT_FALSE(sess.run({}, {y.name()}, {}, &out).is_ok());
  // The run did not ask for stats: its metadata has none.
  actors::run_metadata md;
  ASSERT_TRUE(sess
                .run({{x.name(), core::tensor{core::dtype::float32, {2}}}},
                     {y.name()}, {}, &out, &md)
                .is_ok());
  EXPECT_TRUE(md.stats.devices.empty());
  std::lock_guard<std::mutex> guard{observer->mtx};
  EXPECT_EQ(observer->relus, 4);
  EXPECT_EQ(observer->steps, 5);
  EXPECT_EQ(observer->failed, 1);
}
