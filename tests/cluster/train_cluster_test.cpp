// `actorflow train --cluster F --task worker:N`: between-graph replicated
// training of a small MLP over a ps process and two worker processes, one
// epoch, asynchronous updates. The chief initialises and checkpoints; both
// workers learn from their shards.

#include <filesystem>
#include <fstream>
#include <future>

#include <gtest/gtest.h>

#include "common/command.hpp"
#include "common/worker_processes.hpp"
#include "fashion_data.hpp"

using namespace actorflow;

namespace {

/// The value of `"key": <number>` in the last line of `output`, or -1.
double json_number(const std::string& output, const std::string& key) {
  auto at = output.rfind("\"" + key + "\": ");
  return at == std::string::npos
           ? -1.0
           : std::atof(output.c_str() + at + key.size() + 4);
}

} // namespace

TEST(train_cluster, two_workers_learn_asynchronously_through_a_ps_task) {
  if (!std::filesystem::exists(std::string{apps::fashion_mnist_dir}
                               + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "needs Debian's dataset-fashion-mnist (setup installs it)";
  // The ps task is a plain worker: the trainers make the queues they share
  // on it; workers serve nothing, so their ports are only names.
  test::worker_processes ps{ACTORFLOW_CLI,
                            {test::job_tasks{"ps", 1, 1, 1, {}, {}, {}}}};
  ASSERT_TRUE(ps.ok()) << ps.error();
  auto dir = std::filesystem::temp_directory_path()
             / ("actorflow-train-cluster-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto config = (dir / "cluster.yaml").string();
  {
    std::ofstream out{config};
    out << "jobs:\n  ps:\n    tasks: [127.0.0.1:" << ps.spec().tasks[0].port
        << "]\n  worker:\n    tasks: [127.0.0.1:1, 127.0.0.1:2]\n";
  }
  auto train = [&](int index) {
    return test::run_command(
      std::string{ACTORFLOW_CLI} + " train fashion-mnist --cluster " + config
      + " --task worker:" + std::to_string(index)
      + " --hidden 32 --epochs 1 --threads 1 --quiet --checkpoint-dir "
      + (dir / "ck").string());
  };
  auto other = std::async(std::launch::async, train, 1);
  auto chief = train(0);
  auto second = other.get();
  ASSERT_TRUE(chief.ok()) << chief.output;
  ASSERT_TRUE(second.ok()) << second.output;
  // One epoch of the small MLP reaches ~0.83 in one process.
  EXPECT_GE(json_number(chief.output, "test_accuracy"), 0.75) << chief.output;
  EXPECT_GE(json_number(second.output, "test_accuracy"), 0.70) << second.output;
  // Each worker took 30000 / 64 steps; the chief wrote the checkpoint.
  EXPECT_TRUE(
    std::filesystem::exists(dir / "ck" / "fashion-mnist-mlp" / "model-468"))
    << chief.output;
  std::filesystem::remove_all(dir);
}
