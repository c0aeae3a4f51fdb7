// A Slurm job step as a cluster (issue 40): ranks to jobs in order, each
// node's tasks on port_base + k, and clear errors. (tests/slurm_job.sh runs
// a real Slurm.)

#include "actorflow/actors/slurm_cluster.hpp"

#include <gtest/gtest.h>

using namespace actorflow;

namespace {

actors::slurm_step step(int procid, int ntasks, std::vector<std::string> hosts,
                        std::string per_node) {
  return {procid, ntasks, std::move(hosts), std::move(per_node)};
}

} // namespace

TEST(slurm_cluster, ranks_fill_the_jobs_in_order_and_nodes_in_blocks) {
  actors::cluster_spec spec;
  std::string task;
  // 7 tasks: 2 on each of n1..n3, 1 on n4.
  auto s = step(3, 7, {"n1", "n2", "n3", "n4"}, "2(x3),1");
  ASSERT_TRUE(
    actors::slurm_cluster(s, "ps:2,worker:5", 9000, &spec, &task).is_ok());
  EXPECT_EQ(task, "worker:1"); // rank 3: the second worker
  ASSERT_EQ(spec.tasks.size(), 7u);
  auto at = [&](const char* name) {
    const auto* t = spec.find(name);
    return t == nullptr ? std::string{"?"}
                        : t->host + ":" + std::to_string(t->port);
  };
  EXPECT_EQ(at("ps:0"), "n1:9000");
  EXPECT_EQ(at("ps:1"), "n1:9001");
  EXPECT_EQ(at("worker:0"), "n2:9000");
  EXPECT_EQ(at("worker:1"), "n2:9001");
  EXPECT_EQ(at("worker:3"), "n3:9001");
  EXPECT_EQ(at("worker:4"), "n4:9000");
  // No --jobs: every task a worker.
  ASSERT_TRUE(
    actors::slurm_cluster(step(0, 2, {"a"}, "2"), "", 8888, &spec, &task)
      .is_ok());
  EXPECT_EQ(task, "worker:0");
  EXPECT_EQ(at("worker:1"), "a:8889");
}

TEST(slurm_cluster, what_does_not_fit_is_said) {
  struct bad_case {
    actors::slurm_step s;
    std::string jobs;
    int port_base;
    const char* says;
  };
  for (const auto& c : std::vector<bad_case>{
         {step(3, 3, {"a"}, "3"), "", 8888, "not a rank"},
         {step(0, 3, {"a", "b"}, "3"), "", 8888, "counts 1 nodes"},
         {step(0, 3, {"a"}, "2"), "", 8888, "places 2 tasks"},
         {step(0, 3, {"a"}, "three"), "", 8888, "N(xM)"},
         {step(0, 4, {"a", "b"}, "2(x2"), "", 8888, "N(xM)"},
         {step(0, 3, {"a"}, "3"), "ps:1,worker:3", 8888, "has 4 tasks"},
         {step(0, 3, {"a"}, "3"), "ps1,worker:2", 8888, "job:count"},
         {step(0, 3, {"a"}, "3"), "ps:0,worker:3", 8888, "job:count"},
         {step(0, 3, {"a"}, "3"), "", 65534, "leaves no port"},
         {step(0, 2, {"a"}, "2"), "p/s:1,worker:1", 8888, "is not"}}) {
    actors::cluster_spec spec;
    std::string task;
    auto st = actors::slurm_cluster(c.s, c.jobs, c.port_base, &spec, &task);
    EXPECT_EQ(st.code(), core::errc::invalid_argument) << c.says;
    EXPECT_NE(st.message().find(c.says), std::string::npos)
      << c.says << " -> " << st.message();
  }
}
