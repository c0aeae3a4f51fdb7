// `actorflow train --cluster F --task worker:N`: between-graph replicated
// training of a small MLP, and of a small char-RNN, over a ps process and
// two worker processes, one epoch, asynchronous or synchronous updates,
// or over two workers alone that all-reduce their gradients. The chief
// initialises and checkpoints; both workers learn from their shards.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/child_leak_exit.hpp"
#include "common/child_process.hpp"
#include "common/command.hpp"
#include "common/free_port.hpp"
#include "common/metrics_scrape.hpp"
#include "common/net_relay.hpp"
#include "common/worker_processes.hpp"
#include "models/fashion/fashion_data.hpp"

using namespace actorflow;

namespace {

/// `key` of the JSON object on the last line that holds one; -1 if none.
double json_number(const std::string& output, const std::string& key) {
  auto at = output.rfind("\n{");
  at = at == std::string::npos ? output.find('{') : at + 1;
  if (at == std::string::npos)
    return -1.0;
  auto line = nlohmann::json::parse(
    output.substr(at, output.find('\n', at) - at), nullptr, false);
  return line.is_object() && line.contains(key) ? line[key].get<double>()
                                                : -1.0;
}

/// What the two workers printed, after training one epoch over a ps
/// process and them (`job`: what follows `actorflow train`, less the
/// cluster flags), and whether the chief wrote the checkpoint `checkpoint`
/// (a path under --checkpoint-dir). With `workers` = 1 the chief trains
/// alone with the ps (`second` stays empty). With `tf_config` the trainers
/// find the cluster in TF_CONFIG (`--from-tf-config`), the chief as a job
/// of its own as TensorFlow names it. With `scrape_ps` the ps process
/// serves metrics, scraped into `ps_metrics` after the job. With
/// `ps_relay` the trainers reach the ps through tests/tools/net_relay run
/// with those flags (a slow network).
struct two_workers {
  test::command_result chief, second;
  bool checkpoint = false;
  std::string ps_metrics;

  two_workers(const std::string& job, const std::string& checkpoint_path,
              int workers = 2, bool tf_config = false, bool scrape_ps = false,
              std::vector<std::string> ps_relay = {}) {
    test::children_keep_exit_code_under_lsan();
    bool all_reduce = job.find("--strategy allreduce") != std::string::npos;
    // The ps task is a plain worker: the trainers make the queues they
    // share on it; workers serve nothing, so their ports are only names.
    // With --strategy allreduce there is none, and the workers serve.
    std::vector<test::job_tasks> jobs;
    if (!all_reduce)
      jobs.push_back(test::job_tasks{
        "ps",
        1,
        1,
        1,
        scrape_ps ? std::vector<std::string>{"--metrics-port", "0"}
                  : std::vector<std::string>{},
        {},
        {}});
    test::worker_processes ps{ACTORFLOW_CLI, jobs};
    EXPECT_TRUE(ps.ok()) << ps.error();
    if (!ps.ok())
      return;
    int ps_port = all_reduce ? 0 : ps.spec().tasks[0].port;
    std::unique_ptr<test::child_process> relay;
    if (!ps_relay.empty()) {
      ps_port = test::start_relay(
        &relay, "127.0.0.1:" + std::to_string(ps_port), ps_relay);
      EXPECT_NE(ps_port, 0) << relay->output();
    }
    // Workers that serve (--strategy allreduce) must know each other's
    // ports beforehand; others do not listen.
    auto ports
      = all_reduce ? test::free_ports(workers) : std::vector<uint16_t>{1, 2};
    ports.resize(static_cast<size_t>(workers));
    EXPECT_EQ(ports.size(), static_cast<size_t>(workers));
    auto dir = std::filesystem::temp_directory_path()
               / ("actorflow-train-cluster-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto config = (dir / "cluster.yaml").string();
    {
      std::ofstream out{config};
      out << "jobs:\n";
      if (!all_reduce)
        out << "  ps:\n    tasks: [127.0.0.1:" << ps_port << "]\n";
      out << "  worker:\n    tasks: [";
      for (size_t i = 0; i < ports.size(); ++i)
        out << (i > 0 ? ", " : "") << "127.0.0.1:" << ports[i];
      out << "]\n";
    }
    // How trainer `index` is told the cluster: flags, or TF_CONFIG where
    // worker:0 is TensorFlow's chief and the other workers its "worker"s.
    auto train = [&](int index) {
      std::string env, cluster = " --cluster " + config
                                 + " --task worker:" + std::to_string(index);
      if (tf_config) {
        auto address
          = [](int port) { return "127.0.0.1:" + std::to_string(port); };
        nlohmann::json workers = nlohmann::json::array();
        for (size_t i = 1; i < ports.size(); ++i)
          workers.push_back(address(ports[i]));
        nlohmann::json tf{
          {"cluster", {{"chief", {address(ports[0])}}, {"worker", workers}}},
          {"task",
           {{"type", index == 0 ? "chief" : "worker"},
            {"index", index == 0 ? 0 : index - 1}}}};
        if (!all_reduce)
          tf["cluster"]["ps"] = {address(ps_port)};
        env = "TF_CONFIG='" + tf.dump() + "' ";
        cluster = " --from-tf-config";
      }
      return test::run_command(env + ACTORFLOW_CLI + " train " + job + cluster
                               + " --epochs 1 --threads 1 --quiet "
                                 "--checkpoint-dir "
                               + (dir / "ck").string());
    };
    std::future<test::command_result> other;
    if (workers > 1)
      other = std::async(std::launch::async, train, 1);
    chief = train(0);
    if (workers > 1)
      second = other.get();
    checkpoint
      = std::filesystem::exists(dir / "ck" / (checkpoint_path + ".index"));
    std::filesystem::remove_all(dir);
    if (scrape_ps)
      ps_metrics
        = test::http_get(test::metrics_port(ps.next_line(0)), "/metrics");
  }
};

/// Each worker takes 30000 / 64 steps of the small MLP.
two_workers mlp(const std::string& mode) {
  return {"fashion-mnist --hidden 32" + mode, "fashion-mnist-mlp/model-468"};
}

/// One of Debian's fortune files (scripts/setup.sh installs them).
const std::string fortunes = "/usr/share/games/fortunes/science";

/// A small LSTM on one fortune file: 94 batches of 16, 47 a worker.
two_workers char_rnn(const std::string& mode) {
  return {"char-rnn --data " + fortunes
            + " --units 32 --embed 16 --batch 16 --lr 0.01" + mode,
          "char-rnn/model-47"};
}

bool have_data() {
  return std::filesystem::exists(std::string{apps::fashion_mnist_dir}
                                 + "/train-images-idx3-ubyte.gz");
}

} // namespace

TEST(train_cluster, two_workers_learn_asynchronously_through_a_ps_task) {
  if (!have_data())
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  auto run = mlp("");
  ASSERT_TRUE(run.chief.ok()) << run.chief.output;
  ASSERT_TRUE(run.second.ok()) << run.second.output;
  // One epoch of the small MLP reaches ~0.83 in one process.
  EXPECT_GE(json_number(run.chief.output, "test_accuracy"), 0.75)
    << run.chief.output;
  EXPECT_GE(json_number(run.second.output, "test_accuracy"), 0.70)
    << run.second.output;
  EXPECT_TRUE(run.checkpoint) << run.chief.output;
}

/// Trains the small MLP in `mode`, whose replicas apply the same mean
/// gradient each step: both evaluate the very same variables at the end.
void expect_replicas_in_step(const std::string& mode) {
  auto run = mlp(mode);
  ASSERT_TRUE(run.chief.ok()) << run.chief.output;
  ASSERT_TRUE(run.second.ok()) << run.second.output;
  auto accuracy = json_number(run.chief.output, "test_accuracy");
  EXPECT_GE(accuracy, 0.75) << run.chief.output;
  EXPECT_EQ(json_number(run.second.output, "test_accuracy"), accuracy)
    << run.second.output;
  EXPECT_TRUE(run.checkpoint) << run.chief.output;
}

TEST(train_cluster, two_workers_learn_in_step_with_sync) {
  // Through the ps: the chief applies the mean once all have added theirs.
  if (!have_data())
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  expect_replicas_in_step(" --sync");
}

TEST(train_cluster, a_tf_config_cluster_trains_as_its_cluster_file) {
  // TF_CONFIG names ps:0, the chief (our worker:0) and one "worker" (our
  // worker:1); the replicas keep step as with the file.
  if (!have_data())
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  two_workers run{"fashion-mnist --hidden 32 --sync",
                  "fashion-mnist-mlp/model-468", 2, true};
  ASSERT_TRUE(run.chief.ok()) << run.chief.output;
  ASSERT_TRUE(run.second.ok()) << run.second.output;
  auto accuracy = json_number(run.chief.output, "test_accuracy");
  EXPECT_GE(accuracy, 0.75) << run.chief.output;
  EXPECT_EQ(json_number(run.second.output, "test_accuracy"), accuracy);
  EXPECT_TRUE(run.checkpoint) << run.chief.output;
}

TEST(train_cluster, the_ps_task_counts_the_steps_and_values_it_served) {
  // An operator scraping the ps of a training job: every training step
  // of both workers ran a part on it, and it sent them the weights.
  if (!have_data())
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  two_workers r{"fashion-mnist --hidden 32", "fashion-mnist-mlp/model-468", 2,
                false, true};
  ASSERT_EQ(r.chief.exit_code, 0) << r.chief.output;
  ASSERT_EQ(r.second.exit_code, 0) << r.second.output;
  ASSERT_EQ(test::status_of(r.ps_metrics), 200) << r.ps_metrics;
  // 468 steps a worker, each with a part on ps; the session's set-up
  // (initialisation, queues) adds a few.
  auto ok = test::sample(r.ps_metrics, "actorflow_steps_total{result=\"ok\"}");
  EXPECT_GE(ok, 2 * 468) << r.ps_metrics;
  EXPECT_LE(ok, 2 * 468 + 20) << r.ps_metrics;
  EXPECT_EQ(
    test::sample(r.ps_metrics, "actorflow_step_duration_seconds_count"),
    ok
      + test::sample(r.ps_metrics, "actorflow_steps_total{result=\"failed\"}"));
  // The 784x32 layer's weights (100 KB) go by the bulk path to each
  // worker at least once a step.
  for (auto worker : {"/job:worker/task:0", "/job:worker/task:1"})
    EXPECT_GE(test::sample(r.ps_metrics,
                           std::string{"actorflow_sent_values_total{peer=\""}
                             + worker + "\",path=\"bulk\"}"),
              468)
      << r.ps_metrics;
}

TEST(train_cluster, sync_training_over_a_slow_network_keeps_its_accuracy) {
  // 20 ms added each way and 40 Mbit/s each way between the trainers and
  // the ps (a net_relay); a layer of 8 keeps every value under the bulk
  // path's 64 KiB, so all of it crosses the relay. Two sync workers
  // finish, no peer taken for gone, at a clean run's accuracy (0.66-0.69
  // here; two workers vary by up to 3 points between runs: which worker's
  // gradient the chief adds first). One worker's runs repeat exactly:
  // through the relay it reaches the very accuracy of a clean run.
  if (!have_data())
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  const std::string job = "fashion-mnist --hidden 8 --batch 1024 --sync";
  const std::string checkpoint = "fashion-mnist-mlp/model-58";
  const std::vector<std::string> slow_link{"--delay-ms", "20", "--rate-kbps",
                                           "40000"};
  two_workers two{job, checkpoint, 2, false, false, slow_link};
  ASSERT_EQ(two.chief.exit_code, 0) << two.chief.output;
  ASSERT_EQ(two.second.exit_code, 0) << two.second.output;
  EXPECT_TRUE(two.checkpoint) << two.chief.output;
  EXPECT_GE(json_number(two.chief.output, "test_accuracy"), 0.6)
    << two.chief.output;
  two_workers clean{job, checkpoint, 1};
  two_workers slow{job, checkpoint, 1, false, false, slow_link};
  ASSERT_EQ(slow.chief.exit_code, 0) << slow.chief.output;
  auto clean_accuracy = json_number(clean.chief.output, "test_accuracy");
  auto slow_accuracy = json_number(slow.chief.output, "test_accuracy");
  std::printf("accuracy: two workers %.4f; one worker: clean %.4f, through "
              "the relay %.4f\n",
              json_number(two.chief.output, "test_accuracy"), clean_accuracy,
              slow_accuracy);
  EXPECT_EQ(slow_accuracy, clean_accuracy)
    << slow.chief.output << clean.chief.output;
}

TEST(train_cluster, two_workers_all_reduce_their_gradients_without_a_ps) {
  // No ps: each worker holds the variables and applies the mean gradient
  // its ring all-reduce gives both.
  if (!have_data())
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  expect_replicas_in_step(" --strategy allreduce");
}

TEST(train_cluster, bfloat16_on_the_wire_keeps_the_accuracy) {
  // --wire-dtype bfloat16: the weights the worker reads from the ps and
  // the gradients it sends back cross with 8 significant bits; training
  // ends within 0.5 points of float32's accuracy. One worker: with two,
  // which worker's gradient the chief takes first varies, and one epoch's
  // accuracy with it by up to a point between float32 runs -- more than
  // what is measured. Alone, a run is the same every time.
  if (!have_data())
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  auto accuracy = [](const std::string& mode) {
    two_workers run{"fashion-mnist --hidden 32" + mode, "fashion-mnist-mlp", 1};
    EXPECT_TRUE(run.chief.ok()) << run.chief.output;
    return json_number(run.chief.output, "test_accuracy");
  };
  auto want = accuracy("");
  auto again = accuracy("");
  auto got = accuracy(" --wire-dtype bfloat16");
  std::printf("test accuracy: float32 on the wire %.4f and %.4f, bfloat16 "
              "%.4f\n",
              want, again, got);
  EXPECT_GE(want, 0.75);
  EXPECT_EQ(again, want) << "one worker's training is not deterministic";
  EXPECT_NEAR(got, want, 0.005);
}

TEST(train_cluster, two_workers_train_a_char_rnn_asynchronously) {
  if (!std::filesystem::exists(fortunes))
    GTEST_SKIP() << "needs Debian's fortunes (setup installs them)";
  auto run = char_rnn("");
  ASSERT_TRUE(run.chief.ok()) << run.chief.output;
  ASSERT_TRUE(run.second.ok()) << run.second.output;
  for (const auto* worker : {&run.chief, &run.second}) {
    auto model = json_number(worker->output, "held_out_perplexity");
    auto unigram = json_number(worker->output, "unigram_perplexity");
    EXPECT_GT(model, 1.0) << worker->output;
    EXPECT_LT(model, unigram) << worker->output;
  }
  EXPECT_TRUE(run.checkpoint) << run.chief.output;
}

TEST(train_cluster, two_workers_train_a_char_rnn_in_step_with_sync) {
  if (!std::filesystem::exists(fortunes))
    GTEST_SKIP() << "needs Debian's fortunes (setup installs them)";
  auto run = char_rnn(" --sync");
  ASSERT_TRUE(run.chief.ok()) << run.chief.output;
  ASSERT_TRUE(run.second.ok()) << run.second.output;
  auto model = json_number(run.chief.output, "held_out_perplexity");
  EXPECT_LT(model, json_number(run.chief.output, "unigram_perplexity"))
    << run.chief.output;
  EXPECT_EQ(json_number(run.second.output, "held_out_perplexity"), model)
    << run.second.output;
  EXPECT_TRUE(run.checkpoint) << run.chief.output;
}

TEST(train_cluster, a_mixtures_experts_live_on_the_expert_tasks) {
  // `train moe` over ps:0, expert:0 and expert:1 (plain worker processes)
  // and one trainer: the experts' weights, compute and updates on the
  // expert tasks, and only the rows each expert gets cross to it -- per
  // step the 2 x 128 dispatched rows of 784 floats, the experts' 32-wide
  // answers and their gradients, and the gating weights to and from the
  // ps: 918,528 bytes and a few small tensors, where sending the whole
  // batch to each of four experts would be 1.6 MB for the rows alone.
  if (!have_data())
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  test::children_keep_exit_code_under_lsan();
  test::worker_processes servers{
    ACTORFLOW_CLI,
    {test::job_tasks{"ps", 1, 1, 1, {}, {}, {}},
     test::job_tasks{"expert", 2, 1, 1, {}, {}, {}}}};
  ASSERT_TRUE(servers.ok()) << servers.error();
  auto dir = std::filesystem::temp_directory_path()
             / ("actorflow-train-moe-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto config = (dir / "cluster.yaml").string();
  {
    const auto& t = servers.spec().tasks;
    std::ofstream out{config};
    out << "jobs:\n  ps:\n    tasks: [127.0.0.1:" << t[0].port
        << "]\n  expert:\n    tasks: [127.0.0.1:" << t[1].port
        << ", 127.0.0.1:" << t[2].port
        << "]\n  worker:\n    tasks: [127.0.0.1:1]\n";
  }
  auto trace = (dir / "trace.json").string();
  auto run = test::run_command(
    std::string{ACTORFLOW_CLI}
    + " train moe --experts 4 --k 2 --hidden 32,32 --epochs 1 --threads 1"
      " --quiet --cluster "
    + config + " --task worker:0 --checkpoint-dir " + (dir / "ck").string()
    + " --trace " + trace + " --trace-steps 10:12");
  ASSERT_TRUE(run.ok()) << run.output;
  EXPECT_GE(json_number(run.output, "test_accuracy"), 0.78) << run.output;
  std::ifstream in{trace};
  auto events = nlohmann::json::parse(in, nullptr, false);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(events.is_object()) << "no trace";
  std::set<std::string> processes;
  std::vector<int64_t> step_bytes;
  std::map<int64_t, std::string> pid_names;
  for (const auto& e : events["traceEvents"]) {
    if (e.value("name", "") == "process_name")
      pid_names[e["pid"].get<int64_t>()] = e["args"]["name"];
    if (e.value("cat", "") == "step")
      step_bytes.push_back(e["args"]["process_bytes"].get<int64_t>());
  }
  for (const auto& e : events["traceEvents"])
    if (e.value("cat", "") == "MatMul" || e.value("cat", "") == "_FusedMatMul")
      processes.insert(pid_names[e["pid"].get<int64_t>()]);
  EXPECT_TRUE(processes.count("/job:expert/task:0") == 1
              && processes.count("/job:expert/task:1") == 1)
    << "the experts' products did not run on the expert tasks";
  ASSERT_EQ(step_bytes.size(), 2u);
  for (auto bytes : step_bytes) {
    EXPECT_GE(bytes, 918'528);
    EXPECT_LE(bytes, 940'000);
  }
}
