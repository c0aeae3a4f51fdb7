// Collective all-reduce (issue 39) among the devices of one process: the
// ring gives each member the sum (or mean) of every member's tensor, run
// after run; `graph::all_reduce` fuses values into buckets and gives each
// back in its shape; members that disagree fail the step, saying so.

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/collective_ops.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using graph::output;

namespace {

constexpr int members_n = 3;

std::vector<std::string> member_devices(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back("/job:localhost/task:0/device:cpu:" + std::to_string(i));
  return out;
}

/// Member `rank`'s part in run `run`: small integers, exact in floats.
tensor part(const core::shape& sh, int rank, int run) {
  std::vector<float> v(static_cast<size_t>(sh.num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i]
      = static_cast<float>((static_cast<int>(i) * (rank + 2) + run) % 11 - 5);
  return tensor::from_vector<float>(sh, v);
}

tensor sum_of_parts(const core::shape& sh, int n, int run, float scale) {
  std::vector<float> v(static_cast<size_t>(sh.num_elements()), 0.0f);
  for (int r = 0; r < n; ++r) {
    auto p = part(sh, r, run);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] += p.data<float>()[i];
  }
  for (auto& x : v)
    x *= scale;
  return tensor::from_vector<float>(sh, v);
}

class collective : public ::testing::Test {
protected:
  collective() : e_(options()) {
    // nop
  }

  static actors::engine_options options() {
    actors::engine_options o;
    o.num_cpu_devices = members_n;
    o.threads_per_device = 1;
    return o;
  }

  actors::engine e_;
};

TEST_F(collective, each_member_gets_the_sum_run_after_run) {
  for (bool mean : {false, true}) {
    for (const core::shape& sh :
         {core::shape{5, 7}, core::shape{2}, core::shape{}}) {
      graph::scope s{e_.context().ops()};
      auto devices = member_devices(members_n);
      std::vector<output> xs, ys;
      for (int r = 0; r < members_n; ++r) {
        auto at = s.sub("m" + std::to_string(r)).with_device(devices[r]);
        xs.push_back(graph::placeholder(at.sub("x"), dtype::float32, sh));
        ys.push_back(
          graph::collective_all_reduce(at, xs.back(), devices, 7, mean));
      }
      ASSERT_TRUE(s.ok()) << s.status().to_string();
      actors::session sess{e_};
      ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
      for (int run = 0; run < 3; ++run) {
        actors::feed_list feeds;
        std::vector<std::string> fetches;
        for (int r = 0; r < members_n; ++r) {
          feeds.emplace_back(xs[r].name(), part(sh, r, run));
          fetches.push_back(ys[r].name());
        }
        std::vector<tensor> out;
        auto st = sess.run(feeds, fetches, {}, &out);
        ASSERT_TRUE(st.is_ok()) << st.to_string();
        auto want
          = sum_of_parts(sh, members_n, run, mean ? 1.0f / members_n : 1.0f);
        for (int r = 0; r < members_n; ++r)
          test::expect_all_near(out[r], want, mean ? 1e-6 : 0.0,
                                "member " + std::to_string(r) + ", run "
                                  + std::to_string(run) + ", shape "
                                  + sh.to_string());
      }
    }
  }
}

TEST_F(collective, all_reduce_fuses_values_into_buckets) {
  const std::vector<core::shape> shapes{{3, 4}, {5}, {2, 2, 2}, {40}, {1}};
  graph::scope s{e_.context().ops()};
  auto devices = member_devices(members_n);
  std::vector<std::vector<output>> xs(members_n), ys(members_n);
  for (int r = 0; r < members_n; ++r) {
    auto at = s.sub("m" + std::to_string(r)).with_device(devices[r]);
    for (size_t k = 0; k < shapes.size(); ++k)
      xs[r].push_back(graph::placeholder(at.sub("x" + std::to_string(k)),
                                         dtype::float32, shapes[k]));
    graph::all_reduce_options o;
    o.members = devices;
    o.bucket_bytes = 64; // {3,4} + {1}, {5} + {2,2,2}, {40} alone
    ys[r] = graph::all_reduce(at, xs[r], o);
  }
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  int collectives = 0;
  for (const auto& n : s.graph_def().nodes())
    collectives += n.op == "CollectiveAllReduce" ? 1 : 0;
  EXPECT_EQ(collectives, 3 * members_n);
  actors::session sess{e_};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  actors::feed_list feeds;
  std::vector<std::string> fetches;
  for (int r = 0; r < members_n; ++r)
    for (size_t k = 0; k < shapes.size(); ++k) {
      feeds.emplace_back(xs[r][k].name(),
                         part(shapes[k], r, static_cast<int>(k)));
      fetches.push_back(ys[r][k].name());
    }
  std::vector<tensor> out;
  auto st = sess.run(feeds, fetches, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  for (int r = 0; r < members_n; ++r)
    for (size_t k = 0; k < shapes.size(); ++k)
      test::expect_all_near(
        out[r * shapes.size() + k],
        sum_of_parts(shapes[k], members_n, static_cast<int>(k), 1.0f), 0.0,
        "member " + std::to_string(r) + ", value " + std::to_string(k));
}

TEST_F(collective, members_that_disagree_fail_the_step) {
  graph::scope s{e_.context().ops()};
  auto devices = member_devices(2);
  auto a = s.sub("a").with_device(devices[0]);
  auto b = s.sub("b").with_device(devices[1]);
  auto ya = graph::collective_all_reduce(
    a, graph::constant(a, tensor::from_vector<float>({4}, {1, 2, 3, 4})),
    devices, 1);
  auto yb = graph::collective_all_reduce(
    b, graph::constant(b, tensor::from_vector<float>({5}, {1, 2, 3, 4, 5})),
    devices, 1);
  actors::session sess{e_};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({}, {ya.name(), yb.name()}, {}, &out);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("same dtype and shape"), std::string::npos)
    << st.to_string();
  EXPECT_NE(st.to_string().find("CollectiveAllReduce"), std::string::npos)
    << st.to_string();
}

TEST_F(collective, a_node_off_its_members_is_an_error) {
  graph::scope s{e_.context().ops()};
  auto devices = member_devices(2);
  auto c = s.sub("c").with_device("/job:localhost/task:0/device:cpu:2");
  auto y = graph::collective_all_reduce(
    c, graph::constant(c, tensor::scalar(1.0f)), devices, 1);
  actors::session sess{e_};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({}, {y.name()}, {}, &out);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("not one of its members"), std::string::npos)
    << st.to_string();
}

TEST_F(collective, a_member_no_session_knows_fails_the_run_naming_it) {
  // The other member's task is no worker of this session: there is
  // nowhere to send its chunk (nor to tell it the run failed).
  graph::scope s{e_.context().ops()};
  std::vector<std::string> devices{"/job:localhost/task:0/device:cpu:0",
                                   "/job:elsewhere/task:7/device:cpu:0"};
  auto a = s.sub("a").with_device(devices[0]);
  auto y = graph::collective_all_reduce(
    a, graph::constant(a, tensor::scalar(1.0f)), devices, 1);
  actors::session sess{e_};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({}, {y.name()}, {}, &out);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("member task /job:elsewhere/task:7 is not a "
                              "worker of this session"),
            std::string::npos)
    << st.to_string();
}

} // namespace
