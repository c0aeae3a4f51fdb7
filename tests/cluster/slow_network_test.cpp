// A cluster over a bad network: tests/tools/net_relay sits between the
// processes (this kernel has no netem) and delays, throttles or stalls
// what crosses. A stalled connection -- open, no FIN, nothing flowing --
// is found by the heartbeat within the peer timeout and fails the step
// naming the task; a connection that drops during a step fails that step
// only. (Training over a delayed, throttled link: train_cluster_test.)

#include <signal.h>

#include <future>

#include <gtest/gtest.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/queue.hpp"
#include "common/child_process.hpp"
#include "common/metrics_scrape.hpp"
#include "common/net_relay.hpp"
#include "common/worker_processes.hpp"

using namespace actorflow;

using test::start_relay;

/// Two workers whose every connection to task 1 goes through a relay,
/// a client, and a session with these signatures: `sum` crosses to task
/// 1 and back; `waiting` waits on task 1's empty queue until the step
/// ends another way, and once its part on task 1 has begun puts an
/// element into task 0's queue `started`, which `take_started` takes.
class cluster_over_a_slow_network : public ::testing::Test {
protected:
  void SetUp() override {
    const std::string timeouts = "timeouts:\n  heartbeat_ms: 100\n"
                                 "  peer_ms: 2000\n";
    procs = std::make_unique<test::worker_processes>(
      ACTORFLOW_CLI,
      std::vector<test::job_tasks>{{"worker", 2, 1, 1, {}, {}, {}}}, timeouts);
    ASSERT_TRUE(procs->ok()) << procs->error();
    actors::cluster_spec spec;
    ASSERT_TRUE(procs->client_spec(&spec).is_ok());
    auto port
      = start_relay(&relay, "127.0.0.1:" + std::to_string(spec.tasks[1].port),
                    {"--delay-ms", "1"});
    ASSERT_NE(port, 0) << relay->output();
    spec.tasks[1].port = port;
    client = std::make_unique<actors::engine>(actors::client_options(spec));
    ASSERT_TRUE(actors::connect_cluster(*client, spec).is_ok());
    graph::scope s{client->context().ops()};
    auto far = s.with_device("/job:worker/task:1/device:cpu:0");
    auto near = s.with_device("/job:worker/task:0/device:cpu:0");
    sum = graph::add(far.sub("sum"), graph::constant(near, 1.0f),
                     graph::constant(far, 2.0f))
            .name();
    auto q
      = graph::queue::fifo(far.sub("q"), {{core::dtype::float32}, {{}}, -1});
    waiting
      = graph::identity(near.sub("waiting"), q.dequeue(far.sub("take"))[0])
          .name();
    auto started = graph::queue::fifo(near.sub("started"),
                                      {{core::dtype::float32}, {{}}, -1});
    started_op = started
                   .enqueue(near.sub("start"),
                            {graph::identity(far.sub("begun"),
                                             graph::constant(far, 1.0f))})
                   .name;
    take_started = started.dequeue(near.sub("take_started"))[0].name();
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    sess = std::make_unique<actors::session>(*client);
    ASSERT_TRUE(sess->extend(s.graph_def()).is_ok());
  }

  /// Runs `sum` through the relay: 3.
  void expect_sum() {
    std::vector<core::tensor> out;
    auto st = sess->run({}, {sum}, {}, &out);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    EXPECT_EQ(out[0].scalar_value<float>(), 3.0f);
  }

  /// Starts `waiting`, sends the relay `sig` once its part on task 1 has
  /// begun, checks that the step fails because task 1 is gone, and
  /// returns how long after the signal it ended.
  std::chrono::nanoseconds fails_naming_task_1(int sig) {
    auto blocked = std::async(std::launch::async, [&] {
      std::vector<core::tensor> values;
      return sess->run({}, {waiting}, {started_op}, &values);
    });
    // (Dropped before the step reached task 1, the connection would be
    // made again for it, and the step would wait for good.)
    std::vector<core::tensor> begun;
    EXPECT_TRUE(sess->run({}, {take_started}, {}, &begun).is_ok());
    EXPECT_EQ(::kill(relay->pid(), sig), 0);
    auto sent = std::chrono::steady_clock::now();
    EXPECT_EQ(blocked.wait_for(std::chrono::seconds{30}),
              std::future_status::ready);
    auto st = blocked.get();
    auto took = std::chrono::steady_clock::now() - sent;
    EXPECT_EQ(st.code(), core::errc::unavailable) << st.to_string();
    EXPECT_NE(st.message().find("worker /job:worker/task:1 is gone"),
              std::string::npos)
      << st.to_string();
    EXPECT_EQ(task_1_up(), 0);
    return took;
  }

  /// The client's gauge of its link to task 1 (-1: none).
  double task_1_up() {
    return test::sample(client->metrics_text(),
                        "actorflow_worker_up{peer=\"/job:worker/task:1\"}");
  }

  std::unique_ptr<test::worker_processes> procs;
  std::unique_ptr<test::child_process> relay;
  std::unique_ptr<actors::engine> client;
  std::unique_ptr<actors::session> sess;
  std::string sum;
  std::string waiting;
  std::string started_op;
  std::string take_started;
};

TEST_F(cluster_over_a_slow_network, a_stalled_connection_fails_the_step) {
  // The relay stalls every connection to task 1 during a step that waits
  // on task 1: no byte and no heartbeat crosses, nothing is closed. After
  // the file's peer timeout the client drops the connection and the step
  // fails naming task 1.
  expect_sum();
  auto took = fails_naming_task_1(SIGUSR1);
  EXPECT_GE(took, std::chrono::milliseconds{1900});
  EXPECT_LE(took, std::chrono::seconds{15});
}

TEST_F(cluster_over_a_slow_network,
       a_connection_that_drops_fails_that_step_only) {
  // The relay drops the connections to task 1 during a step: that step
  // fails at once naming task 1 (no peer timeout to wait for), and the
  // next one connects again and runs.
  expect_sum();
  EXPECT_EQ(task_1_up(), 1);
  EXPECT_LT(fails_naming_task_1(SIGHUP), std::chrono::milliseconds{1900});
  expect_sum();
  EXPECT_EQ(task_1_up(), 1); // connected again
  expect_sum();
}
