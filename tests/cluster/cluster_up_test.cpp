// `actorflow cluster up`: every task of a cluster file started and
// supervised on this machine. A synchronous training job whose worker is
// killed with SIGKILL in its second epoch is restarted as a whole from its
// last checkpoint and finishes on its own; so is one whose link to the ps
// stalls, and then drops, in a relay between them.

#include <netinet/in.h>
#include <sys/socket.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/child_leak_exit.hpp"
#include "common/child_process.hpp"
#include "common/free_port.hpp"
#include "common/net_relay.hpp"
#include "models/fashion/fashion_data.hpp"

using namespace actorflow;

using test::free_port;

/// A synchronous training job (a ps and two workers, an MLP with a hidden
/// layer of 32) under `actorflow cluster up`, in a directory of its own.
class cluster_up_job : public ::testing::Test {
protected:
  void SetUp() override {
    test::children_keep_exit_code_under_lsan();
    if (!std::filesystem::exists(std::string{apps::fashion_mnist_dir}
                                 + "/train-images-idx3-ubyte.gz"))
      GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs "
                      "it)";
    dir = std::filesystem::temp_directory_path()
          / ("actorflow-cluster-up-" + std::to_string(::getpid()) + "-"
             + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
  }

  void TearDown() override {
    if (!dir.empty())
      std::filesystem::remove_all(dir);
  }

  /// Starts `epochs` epochs of the job with the cluster file `yaml`.
  void start(const std::string& yaml, int epochs) {
    auto config = (dir / "cluster.yaml").string();
    std::ofstream{config} << yaml;
    up = std::make_unique<test::child_process>(std::vector<std::string>{
      ACTORFLOW_CLI, "cluster", "up", "--config", config, "--", "train",
      "fashion-mnist", "--sync", "--hidden", "32", "--epochs",
      std::to_string(epochs), "--threads", "1", "--checkpoint-dir",
      (dir / "ck").string()});
  }

  /// Waits for a line of the supervisor's output with `text`.
  bool saw(const std::string& text, int seconds = 60,
           std::string* line = nullptr) {
    return up->wait_for_line(text, std::chrono::seconds{seconds}, line);
  }

  /// Expects the job to end on its own, every worker done, the chief
  /// having trained `epochs` epochs to a test accuracy of 0.78 or more.
  void expect_finished(int epochs) {
    EXPECT_EQ(up->wait(std::chrono::seconds{180}), 0) << up->output();
    const auto& log = up->output();
    EXPECT_NE(log.find("cluster: every worker finished"), std::string::npos)
      << log;
    // The chief's last line: the accuracy after the last epoch.
    auto at = log.rfind("[worker:0] {");
    ASSERT_NE(at, std::string::npos) << log;
    at = log.find('{', at);
    auto last = nlohmann::json::parse(log.substr(at, log.find('\n', at) - at),
                                      nullptr, false);
    ASSERT_TRUE(last.is_object()) << log;
    EXPECT_EQ(last.value("epochs", 0), epochs) << log;
    EXPECT_GE(last.value("test_accuracy", 0.0), 0.78) << log;
  }

  std::filesystem::path dir;
  std::unique_ptr<test::child_process> up;
};

TEST_F(cluster_up_job, a_killed_worker_restarts_the_job_from_its_checkpoint) {
  auto port = free_port();
  ASSERT_GT(port, 0);
  start("jobs:\n  ps:\n    tasks: [127.0.0.1:" + std::to_string(port)
          + "]\n  worker:\n    tasks: [127.0.0.1:1, 127.0.0.1:2]\n",
        2);
  std::string line;
  ASSERT_TRUE(saw("cluster: worker:1 running (pid ", 30, &line))
    << up->output();
  auto pid = std::atoi(line.c_str() + line.find("(pid ") + 5);
  ASSERT_GT(pid, 0) << line;
  // The chief has checkpointed epoch 1: kill worker 1 in epoch 2.
  ASSERT_TRUE(saw("[worker:0] epoch 1/2:")) << up->output();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  expect_finished(2);
  const auto& log = up->output();
  EXPECT_NE(log.find("cluster: worker:1 killed by signal 9"), std::string::npos)
    << log;
  EXPECT_NE(log.find("restarting the job from its last checkpoint"),
            std::string::npos)
    << log;
  EXPECT_NE(log.find("[worker:0] resumed from"), std::string::npos) << log;
}

TEST_F(cluster_up_job, a_job_that_ends_well_raises_no_alarm) {
  auto port = free_port();
  ASSERT_GT(port, 0);
  start("jobs:\n  ps:\n    tasks: [127.0.0.1:" + std::to_string(port)
          + "]\n  worker:\n    tasks: [127.0.0.1:1, 127.0.0.1:2]\n",
        1);
  expect_finished(1);
  // The ps ends once every worker is done: news, not a warning.
  EXPECT_EQ(up->output().find("[warning]"), std::string::npos) << up->output();
}

TEST_F(cluster_up_job, a_stalled_and_a_dropped_link_to_the_ps_restart_it) {
  // The workers reach the ps through tests/tools/net_relay (the file's
  // address for it; the ps listens behind it, the file's `listen`). In
  // epoch 2 the relay stalls every connection -- no byte, no FIN: the
  // workers' step fails after the file's peer timeout naming the ps, the
  // job is restarted from its checkpoint as after a kill, and the link
  // comes back. In epoch 3 the relay drops the connections: a step in
  // flight fails (the job restarts once more) or, between steps, the next
  // connects again. Either way the job finishes on its own.
  auto ps_port = free_port();
  ASSERT_GT(ps_port, 0);
  std::unique_ptr<test::child_process> relay;
  auto relay_port
    = test::start_relay(&relay, "127.0.0.1:" + std::to_string(ps_port));
  ASSERT_NE(relay_port, 0) << relay->output();
  start("jobs:\n  ps:\n    tasks: [127.0.0.1:" + std::to_string(relay_port)
          + "]\n    listen: [127.0.0.1:" + std::to_string(ps_port)
          + "]\n  worker:\n    tasks: [127.0.0.1:1, 127.0.0.1:2]\n"
            "timeouts:\n  heartbeat_ms: 200\n  peer_ms: 2000\n",
        3);
  ASSERT_TRUE(saw("[worker:0] epoch 1/3:", 90)) << up->output();
  ASSERT_EQ(::kill(relay->pid(), SIGUSR1), 0);
  ASSERT_TRUE(saw("restarting the job from its last checkpoint"))
    << up->output();
  ASSERT_EQ(::kill(relay->pid(), SIGUSR2), 0);
  ASSERT_TRUE(saw("[worker:0] resumed from")) << up->output();
  ASSERT_TRUE(saw("[worker:0] epoch 2/3:", 90)) << up->output();
  ASSERT_EQ(::kill(relay->pid(), SIGHUP), 0);
  expect_finished(3);
  // The stall: found by the heartbeat, naming the ps.
  EXPECT_NE(up->output().find("/job:ps/task:0 is gone"), std::string::npos)
    << up->output();
}

TEST(cluster_up, a_dead_worker_is_started_again_and_ctrl_c_stops_all) {
  auto dir = std::filesystem::temp_directory_path()
             / ("actorflow-cluster-up-w-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto config = (dir / "cluster.yaml").string();
  auto a = free_port(), b = free_port();
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  {
    std::ofstream out{config};
    out << "jobs:\n  worker:\n    tasks: [127.0.0.1:" << a
        << ", 127.0.0.1:" << b << "]\n";
  }
  test::child_process up{{ACTORFLOW_CLI, "cluster", "up", "--config", config}};
  std::string line;
  ASSERT_TRUE(up.wait_for_line("cluster: worker:1 running (pid ",
                               std::chrono::seconds{30}, &line))
    << up.output();
  auto pid = std::atoi(line.c_str() + line.find("(pid ") + 5);
  ASSERT_TRUE(up.wait_for_line("[worker:1] actorflow worker /job:worker/task:1 "
                               "listening on",
                               std::chrono::seconds{30}))
    << up.output();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  ASSERT_TRUE(up.wait_for_line("cluster: worker:1 failed; restarting it",
                               std::chrono::seconds{30}))
    << up.output();
  ASSERT_TRUE(up.wait_for_line("cluster: worker:1 running (pid ",
                               std::chrono::seconds{30}, &line))
    << up.output();
  EXPECT_NE(std::atoi(line.c_str() + line.find("(pid ") + 5), pid);
  ASSERT_TRUE(up.wait_for_line("[worker:1] actorflow worker /job:worker/task:1 "
                               "listening on",
                               std::chrono::seconds{30}))
    << up.output();
  ::kill(up.pid(), SIGINT);
  EXPECT_EQ(up.wait(std::chrono::seconds{30}), 0) << up.output();
  EXPECT_NE(up.output().find("cluster: stopping every task"), std::string::npos)
    << up.output();
  std::filesystem::remove_all(dir);
}

TEST(cluster_up, a_task_that_cannot_start_ends_it_at_once_naming_the_task) {
  auto dir = std::filesystem::temp_directory_path()
             / ("actorflow-cluster-up-tls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // The tasks' TLS files do not exist: their engines refuse to start, and
  // no restart can heal that.
  auto a = free_port(), b = free_port();
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  auto config = (dir / "cluster.yaml").string();
  std::ofstream{config} << "jobs:\n  worker:\n    tasks: [127.0.0.1:" << a
                        << ", 127.0.0.1:" << b
                        << "]\ntls:\n  ca: ca.pem\n  certificate: c.pem\n"
                           "  key: c.key\n  client_certificate: c.pem\n"
                           "  client_key: c.key\n";
  test::child_process up{{ACTORFLOW_CLI, "cluster", "up", "--config", config}};
  EXPECT_EQ(up.wait(std::chrono::seconds{60}), 1) << up.output();
  const auto& out = up.output();
  EXPECT_NE(out.find(" could not start (its output above says why); giving up"),
            std::string::npos)
    << out;
  EXPECT_EQ(out.find("restarting"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

TEST(cluster_up, a_taken_port_is_refused_before_any_task_starts) {
  auto dir = std::filesystem::temp_directory_path()
             / ("actorflow-cluster-up-taken-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // worker:1's port is held by another listener.
  int held = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(held, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(held, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(::listen(held, 1), 0);
  ASSERT_EQ(::getsockname(held, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  auto taken = ntohs(addr.sin_port);
  auto a = free_port();
  ASSERT_GT(a, 0);
  auto config = (dir / "cluster.yaml").string();
  std::ofstream{config} << "jobs:\n  worker:\n    tasks: [127.0.0.1:" << a
                        << ", 127.0.0.1:" << taken << "]\n";
  test::child_process up{{ACTORFLOW_CLI, "cluster", "up", "--config", config}};
  EXPECT_EQ(up.wait(std::chrono::seconds{60}), 1) << up.output();
  const auto& out = up.output();
  EXPECT_NE(out.find("/job:worker/task:1's port " + std::to_string(taken)
                     + " on 127.0.0.1 is taken by another process"),
            std::string::npos)
    << out;
  EXPECT_EQ(out.find("running"), std::string::npos) << out;
  ::close(held);
  std::filesystem::remove_all(dir);
}

TEST(cluster_up, more_tasks_than_this_machine_holds_are_refused_at_once) {
  auto dir = std::filesystem::temp_directory_path()
             / ("actorflow-cluster-up-many-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // 200,000 tasks over four loopback addresses: more memory, threads or
  // open files than a machine that runs this test has.
  auto config = (dir / "cluster.yaml").string();
  {
    std::ofstream out{config};
    out << "jobs:\n  worker:\n    tasks: [";
    for (int i = 0; i < 200000; ++i)
      out << (i ? ", " : "") << "127.0.0." << 1 + i / 50000 << ":"
          << 10000 + i % 50000;
    out << "]\n";
  }
  test::child_process up{{ACTORFLOW_CLI, "cluster", "up", "--config", config}};
  EXPECT_EQ(up.wait(std::chrono::seconds{60}), 1) << up.output();
  const auto& out = up.output();
  EXPECT_NE(out.find("actorflow cluster up: resource_exhausted: 200000 tasks "
                     "need about "),
            std::string::npos)
    << out;
  EXPECT_EQ(out.find("running"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}
