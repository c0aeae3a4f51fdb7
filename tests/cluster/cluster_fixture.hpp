#pragma once

// The fixture of the multi-process tests: two real `actorflow worker`
// processes for the whole suite, a client engine connected to them per
// test, and graphs run once in one process (devices cpu:0 and cpu:1) and
// once over the two workers, compared bit for bit. ctest runs the suite
// twice: over plain TCP, and (`tls.cluster.*`, ACTORFLOW_TEST_TLS=1) with
// mutual TLS between every process, certificates made for the run.

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/scope.hpp"
#include "common/test_pki.hpp"
#include "common/worker_processes.hpp"

namespace actorflow::test {

using core::tensor;

inline constexpr const char* task0 = "/job:worker/task:0/device:cpu:0";
inline constexpr const char* task1 = "/job:worker/task:1/device:cpu:0";

/// Builds a graph whose nodes go to devices `a` and `b`; returns what to
/// fetch, and fills feeds and targets.
struct built {
  std::vector<std::string> fetches;
  actors::feed_list feeds;
  std::vector<std::string> init;    ///< Run once first.
  std::vector<std::string> targets; ///< Run with the fetches.
};
using builder = std::function<built(graph::scope&, const std::string& a,
                                    const std::string& b)>;

inline bool same_bits(const tensor& x, const tensor& y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape()
         && x.bytes() == y.bytes()
         && std::memcmp(x.raw_data(), y.raw_data(), x.bytes()) == 0;
}

class cluster : public ::testing::Test {
protected:
  /// Whether this run of the suite is the TLS one.
  static bool tls() {
    const char* v = std::getenv("ACTORFLOW_TEST_TLS");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }

  static void SetUpTestSuite() {
    std::string more_yaml;
    if (tls()) {
      pki_ = new test_pki;
      for (auto name : {"worker-0", "worker-1", "client"})
        pki_->sign(name);
      more_yaml = pki_->yaml();
    }
    procs_ = new worker_processes{
      ACTORFLOW_CLI, {job_tasks{"worker", 2, 2, 1, {}, {}, {}}}, more_yaml};
  }

  static void TearDownTestSuite() {
    delete procs_;
    procs_ = nullptr;
    delete pki_;
    pki_ = nullptr;
  }

  void SetUp() override {
    if (pki_ != nullptr) {
      ASSERT_TRUE(pki_->skip_reason().empty()) << pki_->skip_reason();
    }
    ASSERT_TRUE(procs_->ok()) << procs_->error();
    actors::cluster_spec spec;
    ASSERT_TRUE(procs_->client_spec(&spec).is_ok());
    client_ = std::make_unique<actors::engine>(actors::client_options(spec));
    ASSERT_TRUE(client_->init_status().is_ok())
      << client_->init_status().to_string();
    auto st = actors::connect_cluster(*client_, spec);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    ASSERT_EQ(client_->uses_tls(), tls());
  }

  /// Runs what `build` makes `steps` times on `e` with devices a and b.
  std::vector<std::vector<tensor>> run_on(actors::engine& e, const builder& b,
                                          const std::string& dev_a,
                                          const std::string& dev_b, int steps) {
    graph::scope s{e.context().ops()};
    auto what = b(s, dev_a, dev_b);
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    auto st = sess.extend(s.graph_def());
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    std::vector<tensor> out;
    if (!what.init.empty()) {
      st = sess.run({}, {}, what.init, &out);
      EXPECT_TRUE(st.is_ok()) << st.to_string();
    }
    std::vector<std::vector<tensor>> results;
    for (int i = 0; i < steps; ++i) {
      st = sess.run(what.feeds, what.fetches, what.targets, &out);
      EXPECT_TRUE(st.is_ok()) << st.to_string();
      results.push_back(out);
    }
    return results;
  }

  /// One process against the cluster, bit for bit.
  void expect_same(const builder& b, int steps = 3) {
    actors::engine local;
    auto one = run_on(local, b, "cpu:0", "cpu:1", steps);
    auto many = run_on(*client_, b, task0, task1, steps);
    ASSERT_EQ(one.size(), many.size());
    for (size_t i = 0; i < one.size(); ++i) {
      ASSERT_EQ(one[i].size(), many[i].size());
      for (size_t k = 0; k < one[i].size(); ++k)
        EXPECT_TRUE(same_bits(one[i][k], many[i][k]))
          << "step " << i << ", fetch " << k << ": " << one[i][k].debug_string()
          << " vs " << many[i][k].debug_string();
    }
  }

  inline static worker_processes* procs_ = nullptr;
  inline static test_pki* pki_ = nullptr;
  std::unique_ptr<actors::engine> client_;
};

inline tensor iota(const core::shape& s, float scale) {
  std::vector<float> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * static_cast<float>(i % 17) - 1.0f;
  return tensor::from_vector<float>(s, v);
}

} // namespace actorflow::test
