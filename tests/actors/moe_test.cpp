// graph::moe_layer (issue 38) against TensorFlow's dense formulation of
// the same layer (tests/golden/moe_layer.txt, gen_moe_golden.py): outputs,
// gates, importance, load, the balancing loss and the gradients of
// sum(y^2) + loss, with experts on one device and spread over two; an
// expert that gets no rows runs nothing.

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/moe.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::tensor;
using graph::output;

namespace {

constexpr int64_t experts = 4;
constexpr int64_t depth = 4;
constexpr int64_t units = 3;

/// What the layer makes, then the gradients, by golden name.
const std::vector<std::string> results{"y",        "loss",      "importance",
                                       "load",     "gates",     "d_x",
                                       "d_w_gate", "d_w_noise", "d_w_experts"};

class moe : public ::testing::Test {
protected:
  /// Builds the layer on the golden inputs of `name` ("moe", "starved")
  /// with experts on `devices`, runs it (traced) and returns the
  /// results in the order of `results`.
  std::vector<tensor> run(const std::string& name,
                          std::vector<std::string> devices,
                          actors::run_metadata* metadata) {
    graph::scope s{e.context().ops()};
    actors::feed_list feeds;
    auto fed = [&](const std::string& key) {
      const auto& t = golden.at(name + "_" + key);
      auto p = graph::placeholder(s.sub(key), t.dtype(), t.shape());
      feeds.emplace_back(p.name(), t);
      return p;
    };
    auto x = fed("x");
    graph::moe_gating gating{fed("w_gate"), fed("w_noise")};
    auto w = fed("w_experts");
    graph::moe_experts ex;
    ex.count = experts;
    ex.output_size = units;
    ex.devices = std::move(devices);
    ex.build = [&](const graph::scope& b, const output& rows, int64_t i) {
      auto wi = graph::reshape(b, graph::slice(b, w, {i, 0, 0}, {1, -1, -1}),
                               std::vector<int64_t>{depth, units});
      return graph::tanh(b, graph::matmul(b, rows, wi));
    };
    graph::moe_options options;
    options.noise = fed("noise");
    auto out = graph::moe_layer(s, x, gating, ex, options);
    auto total = graph::add(
      s, graph::reduce_sum(s, graph::square(s, out.y), {0, 1}), out.loss);
    auto grads
      = graph::gradients(s, {total}, {x, gating.w_gate, gating.w_noise, w});
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    std::vector<std::string> fetches{out.y.name(), out.loss.name(),
                                     out.importance.name(), out.load.name(),
                                     out.gates.name()};
    for (const auto& g : grads) {
      EXPECT_TRUE(g.has_value());
      if (g.has_value())
        fetches.push_back(g->name());
    }
    fetches.push_back(out.rows.name());
    actors::session sess{e};
    auto st = sess.extend(s.graph_def());
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    actors::run_options opts;
    opts.trace = actors::trace_level::full;
    std::vector<tensor> values;
    st = sess.run(opts, feeds, fetches, {}, &values, metadata);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return values;
  }

  void expect_golden(const std::string& name,
                     const std::vector<tensor>& values) {
    ASSERT_EQ(values.size(), results.size() + 1);
    for (size_t i = 0; i < results.size(); ++i)
      test::expect_all_near(values[i], golden.at(name + "_" + results[i]), 1e-9,
                            name + "_" + results[i]);
  }

  /// The MatMul nodes of expert `i`'s branch that ran.
  static int expert_matmuls(const actors::run_metadata& m, int64_t i) {
    auto prefix = "moe/expert_" + std::to_string(i) + "/";
    int n = 0;
    for (const auto& d : m.stats.devices)
      for (const auto& node : d.nodes)
        n += node.op == "MatMul" && node.node.rfind(prefix, 0) == 0;
    return n;
  }

  actors::engine e;
  std::map<std::string, tensor> golden = test::load_golden("moe_layer.txt");
};

} // namespace

TEST_F(moe, the_layer_equals_tensorflows_dense_formulation_and_gradients) {
  for (auto devices : {std::vector<std::string>{},
                       std::vector<std::string>{"cpu:0", "cpu:1"}}) {
    SCOPED_TRACE(devices.empty() ? "one device" : "experts on two devices");
    actors::run_metadata m;
    auto values = run("moe", devices, &m);
    expect_golden("moe", values);
    // Every expert got rows (two per example over four experts) and ran
    // its forward and its two gradient products.
    ASSERT_EQ(values.size(), results.size() + 1);
    const auto& rows = values.back();
    int64_t total = 0;
    for (int64_t i = 0; i < experts; ++i) {
      EXPECT_GT(rows.data<int32_t>()[i], 0) << "expert " << i;
      total += rows.data<int32_t>()[i];
      EXPECT_GE(expert_matmuls(m, i), 1) << "expert " << i;
    }
    EXPECT_EQ(total, 2 * 8);
    // Expert 1's products on its device.
    int placed = 0;
    for (const auto& [node, device] : m.placement) {
      if (node.rfind("moe/expert_1/cond/", 0) == 0
          && node.find("MatMul") != std::string::npos) {
        ++placed;
        EXPECT_NE(device.find(devices.empty() ? "cpu:0" : "cpu:1"),
                  std::string::npos)
          << node;
      }
    }
    EXPECT_GE(placed, 1);
  }
}

TEST_F(moe, an_expert_without_rows_runs_nothing) {
  actors::run_metadata m;
  auto values = run("starved", {"cpu:0", "cpu:1"}, &m);
  expect_golden("starved", values);
  ASSERT_EQ(values.size(), results.size() + 1);
  EXPECT_EQ(values.back().data<int32_t>()[3], 0);
  EXPECT_EQ(expert_matmuls(m, 3), 0) << "the starved expert's branch ran";
  EXPECT_GE(expert_matmuls(m, 0), 1);
}
