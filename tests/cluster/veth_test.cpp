// The cluster with its workers in network namespaces of their own, joined
// by veth pairs and a bridge (tests/common/veth_lan.hpp), so that the
// values between the client and the workers, and between the two workers,
// cross real interfaces rather than loopback. Needs root; elsewhere the
// test says why it is skipped.

#include <gtest/gtest.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "common/run_once.hpp"
#include "common/veth_lan.hpp"
#include "common/worker_processes.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

constexpr int64_t mib = 1 << 20;

} // namespace

TEST(cluster_over_veth, values_cross_real_interfaces_bit_for_bit) {
  test::veth_lan lan{2};
  if (!lan.skip_reason().empty())
    GTEST_SKIP() << "no network namespaces: " << lan.skip_reason();
  test::job_tasks job{"worker", 2, 2, 1, {}, {}, {}};
  job.hosts = {lan.address_of(1), lan.address_of(2)};
  job.namespaces = {lan.name(1), lan.name(2)};
  test::worker_processes procs{ACTORFLOW_CLI, {job}};
  ASSERT_TRUE(procs.ok()) << procs.error();
  EXPECT_EQ(procs.bulk_address(0).rfind(lan.address_of(1) + ":", 0), 0u)
    << procs.bulk_address(0);
  actors::engine_options o;
  o.network = true;
  actors::engine client{o};
  auto st = actors::connect_cluster(client, procs.spec());
  ASSERT_TRUE(st.is_ok()) << st.to_string();

  // 4 MiB from task 0 to task 1 (by the bulk path) and back to the
  // client, and a loop that alternates between them.
  auto sent1 = lan.bytes_sent(1);
  auto sent2 = lan.bytes_sent(2);
  test::expect_split_graph_and_loop(client, mib);
  // y went from namespace 1 to namespace 2, z from namespace 2 to the
  // client: each at least its 4 MiB through its veth pair.
  EXPECT_GE(lan.bytes_sent(1) - sent1, static_cast<uint64_t>(4 * mib));
  EXPECT_GE(lan.bytes_sent(2) - sent2, static_cast<uint64_t>(4 * mib));
}

TEST(cluster_over_veth, a_cut_link_fails_steps_within_the_peer_timeout) {
  // Task 1's link goes down in the middle of a step: no heartbeat crosses,
  // so after the cluster file's peer timeout the client drops the
  // connection and the step fails naming task 1, while steps on task 0
  // go on. Once the link is up again, the session connects to task 1
  // anew and steps over both workers run.
  test::veth_lan lan{2};
  if (!lan.skip_reason().empty())
    GTEST_SKIP() << "no network namespaces: " << lan.skip_reason();
  const std::string timeouts = "timeouts:\n  heartbeat_ms: 100\n"
                               "  peer_ms: 1500\n";
  test::job_tasks job{"worker", 2, 2, 1, {}, {}, {}};
  job.hosts = {lan.address_of(1), lan.address_of(2)};
  job.namespaces = {lan.name(1), lan.name(2)};
  test::worker_processes procs{ACTORFLOW_CLI, {job}, timeouts};
  ASSERT_TRUE(procs.ok()) << procs.error();
  actors::cluster_spec spec;
  ASSERT_TRUE(procs.client_spec(&spec).is_ok());
  actors::engine client{actors::client_options(spec)};
  ASSERT_TRUE(actors::connect_cluster(client, spec).is_ok());
  const std::string task0 = "/job:worker/task:0/device:cpu:0";
  const std::string task1 = "/job:worker/task:1/device:cpu:0";
  graph::scope s{client.context().ops()};
  auto x
    = graph::placeholder(s.sub("x").with_device(task0), dtype::float32, {4});
  auto across = graph::add(s.sub("across").with_device(task1), x,
                           graph::constant(s.with_device(task1), 1.0f));
  auto alone = graph::mul(s.sub("alone").with_device(task0), x,
                          graph::constant(s.with_device(task0), 2.0f));
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{client};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  actors::feed_list feeds{
    {x.name(), tensor::from_vector<float>({4}, {1, 2, 3, 4})}};
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run(feeds, {across.name()}, {}, &out).is_ok());

  ASSERT_TRUE(lan.set_link(2, false)) << lan.skip_reason();
  auto cut = std::chrono::steady_clock::now();
  auto st = sess.run(feeds, {across.name()}, {}, &out);
  auto took = std::chrono::steady_clock::now() - cut;
  EXPECT_EQ(st.code(), core::errc::unavailable) << st.to_string();
  EXPECT_NE(st.message().find("worker /job:worker/task:1 is gone"),
            std::string::npos)
    << st.to_string();
  EXPECT_LT(took, std::chrono::milliseconds{1500 + 2000});
  st = sess.run(feeds, {alone.name()}, {}, &out);
  EXPECT_TRUE(st.is_ok()) << st.to_string();

  ASSERT_TRUE(lan.set_link(2, true)) << lan.skip_reason();
  st = sess.run(feeds, {across.name(), alone.name()}, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(out[0].data<float>()[3], 5.0f);
  EXPECT_EQ(out[1].data<float>()[3], 8.0f);
}
