// Pipelines from loop iterations in flight (issue 39): a two-stage model
// over micro-batches, its stages on two devices, gives the gradients of
// the whole batch computed at once, and the trace shows the stages of
// different micro-batches running at the same time.

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/functional_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/pipeline.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using graph::output;
using outputs = std::vector<graph::output>;

namespace {

constexpr int64_t batch = 16;
constexpr int64_t micro = 4;
constexpr int64_t in = 6;
constexpr int64_t hidden = 5;
constexpr int64_t out = 3;

tensor ramp(std::vector<int64_t> dims, double scale) {
  core::shape sh{dims};
  std::vector<double> v(static_cast<size_t>(sh.num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * std::sin(0.37 * static_cast<double>(i) + scale);
  return tensor::from_vector<double>(sh, v);
}

class pipeline : public ::testing::Test {
protected:
  actors::engine e;
};

} // namespace

TEST_F(pipeline, gives_the_gradients_of_the_whole_batch) {
  // -1: the model on the whole batch, one device; otherwise a pipeline of
  // `micro` micro-batches over cpu:0 and cpu:1, that many in flight.
  std::vector<std::vector<tensor>> results;
  for (int64_t in_flight : {int64_t{-1}, int64_t{1}, int64_t{0}, int64_t{4}}) {
    SCOPED_TRACE("parallel_iterations " + std::to_string(in_flight));
    graph::scope s{e.context().ops()};
    auto x = graph::placeholder(s.sub("x"), dtype::float64, {-1, in});
    auto w1 = graph::placeholder(s.sub("w1"), dtype::float64, {in, hidden});
    auto w2 = graph::placeholder(s.sub("w2"), dtype::float64, {hidden, out});
    auto stage_1 = [&](const graph::scope& b, outputs v) {
      return outputs{graph::tanh(b, graph::matmul(b, v[0], w1))};
    };
    auto stage_2 = [&](const graph::scope& b, outputs v) {
      return outputs{graph::matmul(b, v[0], w2)};
    };
    output y;
    if (in_flight < 0) {
      y = stage_2(s, stage_1(s, {x}))[0];
    } else {
      graph::pipeline_options o;
      o.micro_batches = micro;
      o.parallel_iterations = in_flight;
      auto ys
        = graph::pipeline(s, {{"cpu:0", stage_1}, {"cpu:1", stage_2}}, {x}, o);
      ASSERT_EQ(ys.size(), 1u) << s.status().to_string();
      y = ys[0];
    }
    auto loss = graph::reduce_sum(s, graph::square(s, y), {0, 1});
    auto g = graph::gradients(s, {loss}, {x, w1, w2});
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> values;
    actors::run_metadata m;
    auto st = sess.run(
      {},
      {{x.name(), ramp({batch, in}, 1.0)},
       {w1.name(), ramp({in, hidden}, 0.5)},
       {w2.name(), ramp({hidden, out}, 0.7)}},
      {y.name(), loss.name(), g[0]->name(), g[1]->name(), g[2]->name()}, {},
      &values, &m);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    results.push_back(values);
    if (in_flight < 0)
      continue;
    // Each stage on its device, with the stacks its backward pass pops.
    for (const auto& [node, device] : m.placement) {
      bool first = node.find("stage_0/") != std::string::npos;
      bool second = node.find("stage_1/") != std::string::npos;
      if (first || second) {
        EXPECT_NE(device.find(first ? "cpu:0" : "cpu:1"), std::string::npos)
          << node;
      }
    }
  }
  for (size_t k = 1; k < results.size(); ++k)
    for (size_t i = 0; i < results[0].size(); ++i)
      test::expect_all_near(results[k][i], results[0][i], 1e-12,
                            "result " + std::to_string(i));
}

TEST_F(pipeline, a_batch_that_does_not_split_is_an_error) {
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {10, in});
  auto id = [](const graph::scope& b, outputs v) {
    return outputs{graph::identity(b, v[0])};
  };
  graph::pipeline_options o;
  o.micro_batches = 4;
  EXPECT_TRUE(graph::pipeline(s, {{"cpu:0", id}}, {x}, o).empty());
  EXPECT_NE(s.status().message().find("does not split into 4"),
            std::string::npos)
    << s.status().to_string();
  graph::scope t{e.context().ops()};
  EXPECT_TRUE(graph::pipeline(t, {}, {x}, o).empty());
  EXPECT_FALSE(t.ok());
  // Known only at run time: the reshape names the node.
  graph::scope u{e.context().ops()};
  auto y = graph::placeholder(u.sub("y"), dtype::float32, {-1, in});
  auto out = graph::pipeline(u, {{"cpu:0", id}}, {y}, o);
  ASSERT_EQ(out.size(), 1u) << u.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(u.graph_def()).is_ok());
  std::vector<tensor> values;
  auto st = sess.run({{y.name(), tensor::from_vector<float>(
                                   {6, in}, std::vector<float>(6 * in, 1.0f))}},
                     {out[0].name()}, {}, &values);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("pipeline/Reshape"), std::string::npos)
    << st.to_string();
}
