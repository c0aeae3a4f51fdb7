// A worker's Prometheus endpoint (`actorflow worker --metrics-port`), as
// an operator scrapes it: real worker processes, steps run through them,
// the text fetched over HTTP, its numbers checked against what ran, and
// the text checked by Prometheus' own `promtool check metrics`.

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "common/command.hpp"
#include "common/metrics_scrape.hpp"
#include "common/worker_processes.hpp"

using namespace actorflow;
using test::http_get;
using test::metrics_port;
using test::sample;
using test::status_of;

namespace {

class worker_metrics : public ::testing::Test {
protected:
  void SetUp() override {
    procs = std::make_unique<test::worker_processes>(
      ACTORFLOW_CLI, std::vector<test::job_tasks>{
                       {"worker", 2, 1, 1, {"--metrics-port", "0"}, {}, {}}});
    ASSERT_TRUE(procs->ok()) << procs->error();
    for (size_t i = 0; i < 2; ++i) {
      auto line = procs->next_line(i);
      ports[i] = metrics_port(line);
      ASSERT_NE(ports[i], 0) << line;
    }
    client
      = std::make_unique<actors::engine>(actors::client_options(procs->spec()));
    ASSERT_TRUE(actors::connect_cluster(*client, procs->spec()).is_ok());
  }

  /// Runs `steps` steps that send 1 MiB (the bulk path) and a scalar (CAF)
  /// from task 0 to task 1, and one that fails on task 1 (it reads a
  /// variable never initialised), in one session that stays open.
  void run_steps(int steps) {
    graph::scope s{client->context().ops()};
    auto a = s.with_device("/job:worker/task:0/device:cpu:0");
    auto b = s.with_device("/job:worker/task:1/device:cpu:0");
    auto big = graph::constant(a.sub("big"),
                               core::tensor::from_vector<float>(
                                 {1 << 18}, std::vector<float>(1 << 18, 0.5f)));
    auto squared = graph::mul(b.sub("squared"), big, big);
    auto small = graph::add(b.sub("small"), graph::constant(a, 1.0f),
                            graph::constant(b, 2.0f));
    auto never_set = graph::identity(
      b, graph::variable(b.sub("never_set"), graph::constant(b, 3.0f)));
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    sess = std::make_unique<actors::session>(*client);
    ASSERT_TRUE(sess->extend(s.graph_def()).is_ok());
    std::vector<core::tensor> out;
    for (int i = 0; i < steps; ++i) {
      auto st = sess->run({}, {squared.name(), small.name()}, {}, &out);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
    }
    auto st = sess->run({}, {never_set.name()}, {}, &out);
    EXPECT_EQ(st.code(), core::errc::failed_precondition) << st.to_string();
  }

  std::unique_ptr<test::worker_processes> procs;
  std::unique_ptr<actors::engine> client;
  std::unique_ptr<actors::session> sess;
  uint16_t ports[2] = {0, 0};
};

} // namespace

TEST_F(worker_metrics, count_the_steps_and_the_traffic_that_ran) {
  run_steps(3);
  auto sender = http_get(ports[0], "/metrics");
  auto receiver = http_get(ports[1], "/metrics");
  ASSERT_EQ(status_of(sender), 200) << sender;
  EXPECT_NE(sender.find("Content-Type: text/plain; version=0.0.4"),
            std::string::npos)
    << sender;
  // Task 0 sent the 1 MiB value by the bulk path and the scalar by CAF,
  // once a step; task 1 received the bulk bytes.
  const std::string peer = "{peer=\"/job:worker/task:1\",path=";
  EXPECT_EQ(sample(sender, "actorflow_sent_values_total" + peer + "\"bulk\"}"),
            3);
  EXPECT_EQ(sample(sender, "actorflow_sent_bytes_total" + peer + "\"bulk\"}"),
            3 << 20);
  EXPECT_EQ(sample(sender, "actorflow_sent_values_total" + peer + "\"caf\"}"),
            3);
  EXPECT_EQ(sample(sender, "actorflow_sent_bytes_total" + peer + "\"caf\"}"),
            3 * 4);
  EXPECT_EQ(sample(receiver, "actorflow_bulk_received_bytes_total"), 3 << 20);
  EXPECT_EQ(sample(receiver, "actorflow_bulk_received_values_total"), 3);
  EXPECT_EQ(sample(sender, "actorflow_bulk_link_up{peer=\""
                             + procs->bulk_address(1) + "\"}"),
            1);
  // Task 1 ran a part of each of the 4 steps; the last failed there.
  EXPECT_EQ(sample(receiver, "actorflow_steps_total{result=\"ok\"}"), 3);
  EXPECT_EQ(sample(receiver, "actorflow_steps_total{result=\"failed\"}"), 1);
  EXPECT_EQ(sample(receiver, "actorflow_step_duration_seconds_count"), 4);
  EXPECT_EQ(
    sample(receiver, "actorflow_step_duration_seconds_bucket{le=\"+Inf\"}"), 4);
  EXPECT_GT(sample(receiver, "actorflow_step_duration_seconds_sum"), 0);
  // Two run signatures, each with a part on task 1, while the session
  // is open.
  EXPECT_EQ(sample(receiver, "actorflow_partition_sets"), 2);
  auto device = "{device=\"/job:worker/task:1/device:cpu:0\"}";
  EXPECT_GE(
    sample(receiver, std::string{"actorflow_allocator_peak_bytes"} + device),
    1 << 20);
  EXPECT_GE(
    sample(receiver, std::string{"actorflow_allocator_bytes_in_use"} + device),
    0);
  // The client's session reaches both workers.
  auto client_text = client->metrics_text();
  for (const char* task : {"/job:worker/task:0", "/job:worker/task:1"})
    EXPECT_EQ(sample(client_text,
                     std::string{"actorflow_worker_up{peer=\""} + task + "\"}"),
              1)
      << client_text;
  // Anything but /metrics is not found.
  EXPECT_EQ(status_of(http_get(ports[1], "/")), 404);
}

TEST_F(worker_metrics, promtool_accepts_the_text) {
  auto promtool = test::run_command("command -v promtool");
  if (!promtool.ok())
    GTEST_SKIP() << "needs Prometheus' promtool (scripts/setup.sh installs "
                    "Debian's prometheus package)";
  run_steps(1);
  // Both workers' texts, and the client's (with its links to them).
  std::vector<std::string> texts{client->metrics_text()};
  for (auto port : ports) {
    auto response = http_get(port, "/metrics");
    auto body = response.find("\r\n\r\n");
    ASSERT_NE(body, std::string::npos) << response;
    texts.push_back(response.substr(body + 4));
  }
  for (const auto& text : texts) {
    auto file = ::testing::TempDir() + "actorflow-metrics-"
                + std::to_string(::getpid()) + ".txt";
    std::ofstream{file} << text;
    auto check = test::run_command("promtool check metrics < " + file);
    std::remove(file.c_str());
    EXPECT_TRUE(check.ok()) << check.output;
    // promtool prints lint findings even when it exits 0.
    EXPECT_EQ(check.output, "") << check.output;
  }
}
