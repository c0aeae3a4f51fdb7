// The cluster with its workers in network namespaces of their own, joined
// by veth pairs and a bridge (tests/common/veth_lan.hpp), so that the
// values between the client and the workers, and between the two workers,
// cross real interfaces rather than loopback. Needs root; elsewhere the
// test says why it is skipped.

#include <cstring>

#include <gtest/gtest.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "common/golden.hpp"
#include "common/loop_cases.hpp"
#include "common/veth_lan.hpp"
#include "common/worker_processes.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

constexpr int64_t mib = 1 << 20;

/// Builds a graph with `build`, which returns the name of its placeholder
/// and what to fetch, and runs it once on `e` with `x` fed.
template <class Build>
std::vector<tensor> run_once(actors::engine& e, Build build, const tensor& x) {
  graph::scope s{e.context().ops};
  auto [feed, fetches] = build(s);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  auto st = sess.extend(s.graph_def());
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  std::vector<tensor> out;
  st = sess.run({{feed, x}}, fetches, {}, &out);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return out;
}

bool same_bits(const tensor& x, const tensor& y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape()
         && std::memcmp(x.raw_data(), y.raw_data(), x.bytes()) == 0;
}

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

  // A 4 MiB tensor fed to task 0, doubled there, sent to task 1 (by the
  // bulk path), plus one there, fetched back; and the halving loop with
  // its body on task 1 (the predicate crosses once per iteration).
  std::vector<float> values(static_cast<size_t>(mib));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i % 1000) * 0.001f;
  auto x = tensor::from_vector<float>({mib}, values);
  auto build = [](const std::string& a, const std::string& b) {
    return [a, b](graph::scope& s) {
      auto x
        = graph::placeholder(s.sub("x").with_device(a), dtype::float32, {mib});
      auto y = graph::mul(s.sub("y").with_device(a), x,
                          graph::constant(s.with_device(a), 2.0f));
      auto z = graph::add(s.sub("z").with_device(b), y,
                          graph::constant(s.with_device(b), 1.0f));
      auto n = graph::constant(s.sub("n").with_device(a), int64_t{20});
      auto loop = test::halving_loop(s.with_device(a), n, b);
      return std::make_pair(x.name(),
                            std::vector<std::string>{z.name(), loop[1].name()});
    };
  };
  auto sent1 = lan.bytes_sent(1);
  auto sent2 = lan.bytes_sent(2);
  auto far = run_once(
    client,
    build("/job:worker/task:0/device:cpu:0", "/job:worker/task:1/device:cpu:0"),
    x);
  actors::engine local;
  auto near = run_once(local, build("cpu:0", "cpu:1"), x);
  ASSERT_EQ(far.size(), 2u);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_TRUE(same_bits(far[0], near[0])) << far[0].debug_string();
  auto golden = test::load_golden("control_flow.txt");
  EXPECT_TRUE(same_bits(far[1], golden.at("halving_n20")))
    << far[1].debug_string();
  // y went from namespace 1 to namespace 2, z from namespace 2 to the
  // client: each at least its 4 MiB through its veth pair.
  EXPECT_GE(lan.bytes_sent(1) - sent1, static_cast<uint64_t>(4 * mib));
  EXPECT_GE(lan.bytes_sent(2) - sent2, static_cast<uint64_t>(4 * mib));
}
