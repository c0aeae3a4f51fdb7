// The op library through sessions: a small network built with the op
// functions matches numpy, random ops repeat per seed, and run-time errors
// name node, op and device.

#include <algorithm>
#include <cmath>
#include <thread>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

class op_library : public ::testing::Test {
protected:
  /// Runs `fetches` of the graph in `s` in a new session.
  std::vector<tensor> run(const graph::scope& s,
                          const std::vector<graph::output>& fetches,
                          core::status* st = nullptr) {
    actors::session sess{e};
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    EXPECT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<std::string> names;
    for (const auto& f : fetches)
      names.push_back(f.name());
    std::vector<tensor> out;
    auto result = sess.run({}, names, {}, &out);
    if (st != nullptr)
      *st = result;
    else
      EXPECT_TRUE(result.is_ok()) << result.to_string();
    return out;
  }

  actors::engine e;
};

} // namespace

TEST_F(op_library, a_small_convolutional_network_matches_numpy) {
  auto golden = test::load_golden("model.txt");
  graph::scope s{e.context().ops()};
  auto x = graph::constant(s.sub("x"), golden.at("model_x"));
  auto conv
    = graph::conv2d(s, x, graph::constant(s, golden.at("model_filter")));
  auto h = graph::relu(
    s, graph::bias_add(s, conv, graph::constant(s, golden.at("model_bias"))));
  auto pooled = graph::max_pool(s, h, 2, 2, {2, 2, "VALID"});
  auto flat = graph::reshape(s, pooled, {2, -1});
  auto logits
    = graph::matmul(s, flat, graph::constant(s, golden.at("model_w")));
  auto probs = graph::softmax(s, logits);
  auto [loss, grad] = graph::sparse_softmax_cross_entropy_with_logits(
    s, logits, graph::constant(s, golden.at("model_labels")));
  auto mean = graph::reduce_mean(s, loss, {0});
  // Shapes are known while building.
  EXPECT_EQ(pooled.shape(), (core::shape{2, 3, 3, 4}));
  EXPECT_EQ(flat.shape(), (core::shape{2, 36}));
  EXPECT_EQ(mean.shape(), core::shape{});
  auto out = run(s, {probs, mean});
  ASSERT_EQ(out.size(), 2u);
  test::expect_all_near(out[0], golden.at("model_probs"), 1e-5, "probs");
  test::expect_all_near(out[1], golden.at("model_loss"), 1e-5, "loss");
}

TEST_F(op_library, random_ops_repeat_per_seed_and_move_on_per_step) {
  graph::scope s{e.context().ops()};
  auto u = graph::random_uniform(s, {4, 3}, dtype::float32, {7, 3});
  actors::session a{e}, b{e};
  ASSERT_TRUE(a.extend(s.graph_def()).is_ok());
  ASSERT_TRUE(b.extend(s.graph_def()).is_ok());
  std::vector<tensor> a1, a2, b1;
  ASSERT_TRUE(a.run({}, {u.name()}, {}, &a1).is_ok());
  ASSERT_TRUE(a.run({}, {u.name()}, {}, &a2).is_ok());
  ASSERT_TRUE(b.run({}, {u.name()}, {}, &b1).is_ok());
  EXPECT_TRUE(a1[0].equals(b1[0])) << "same seed, same first draw";
  EXPECT_FALSE(a1[0].equals(a2[0])) << "the next step draws new values";
  for (int64_t i = 0; i < a1[0].num_elements(); ++i) {
    EXPECT_GE(a1[0].data<float>()[i], 0.0f);
    EXPECT_LT(a1[0].data<float>()[i], 1.0f);
  }
  graph::scope t{e.context().ops()};
  auto other = graph::random_uniform(t, {4, 3}, dtype::float32, {8, 3});
  EXPECT_FALSE(run(t, {other})[0].equals(a1[0])) << "another seed";
}

TEST_F(op_library, random_normal_has_the_requested_moments) {
  graph::scope s{e.context().ops()};
  auto z = graph::random_normal(s, {20000}, 3.0, 0.5, dtype::float64, {1, 1});
  auto t = graph::truncated_normal(s, {20000}, dtype::float64, {2, 2});
  auto out = run(s, {z, t});
  double sum = 0, sq = 0, max_abs = 0;
  for (int64_t i = 0; i < 20000; ++i) {
    auto v = out[0].data<double>()[i];
    sum += v;
    sq += v * v;
    max_abs = std::max(max_abs, std::abs(out[1].data<double>()[i]));
  }
  double mean = sum / 20000, var = sq / 20000 - mean * mean;
  EXPECT_NEAR(mean, 3.0, 0.02); // 4 standard errors
  EXPECT_NEAR(var, 0.25, 0.01);
  EXPECT_LE(max_abs, 2.0);
}

TEST_F(op_library, check_numerics_names_node_op_device_and_index) {
  graph::scope s{e.context().ops()};
  auto x = graph::constant(
    s, tensor::from_vector<float>({4}, {1.0f, 0.0f, 2.0f, 0.0f}));
  auto inf = graph::div(s, graph::constant(s, 1.0), x);
  auto checked = graph::check_numerics(s.sub("guard"), inf, "after div");
  core::status st;
  run(s, {checked}, &st);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), checked.node_name());
  EXPECT_EQ(st.op(), "CheckNumerics");
  EXPECT_EQ(st.device(), "/job:localhost/task:0/device:cpu:0");
  EXPECT_NE(st.message().find("after div"), std::string::npos);
  EXPECT_NE(st.message().find("Inf"), std::string::npos);
  EXPECT_NE(st.message().find("index 1"), std::string::npos) << st.message();
}

TEST_F(op_library, bad_values_at_run_time_are_errors_that_name_the_node) {
  graph::scope s{e.context().ops()};
  auto logits = graph::placeholder(s.sub("logits"), dtype::float32, {2, 3});
  auto labels = graph::placeholder(s.sub("labels"), dtype::int64, {2});
  auto [loss, grad] = graph::sparse_softmax_cross_entropy_with_logits(
    s.sub("xent"), logits, labels);
  auto idx = graph::placeholder(s.sub("idx"), dtype::int32, {-1});
  auto picked = graph::gather(s.sub("pick"), logits, idx);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto l = tensor::from_vector<float>({2, 3}, {0, 0, 0, 0, 0, 0});
  std::vector<tensor> out;
  auto st
    = sess.run({{logits.name(), l},
                {labels.name(), tensor::from_vector<int64_t>({2}, {0, 3})}},
               {loss.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), loss.node_name());
  EXPECT_NE(st.message().find("labels[1] = 3"), std::string::npos)
    << st.message();
  st = sess.run({{logits.name(), l},
                 {idx.name(), tensor::from_vector<int32_t>({2}, {1, -1})}},
                {picked.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.op(), "GatherV2");
  // A value of the wrong dtype is refused before anything runs.
  st = sess.run({{logits.name(), tensor{dtype::float64, {2, 3}}},
                 {labels.name(), tensor::from_vector<int64_t>({2}, {0, 1})}},
                {loss.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  // The session still works.
  st = sess.run({{logits.name(), l},
                 {labels.name(), tensor::from_vector<int64_t>({2}, {0, 1})}},
                {loss.name()}, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_NEAR(out[0].data<float>()[0], std::log(3.0f), 1e-6);
}

TEST_F(op_library, concurrent_steps_share_a_convolution_safely) {
  // Inputs of 16,384 elements make Conv2D run on actors of its own, so the
  // eight steps below compute at the same time through one kernel object
  // (its im2col buffers are per call). Each result must equal a direct
  // convolution computed here.
  constexpr int64_t B = 8, H = 16, W = 16, C = 8, K = 4;
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {B, H, W, C});
  tensor f{dtype::float32, {3, 3, C, K}};
  for (int64_t i = 0; i < f.num_elements(); ++i)
    f.mutable_data<float>()[i] = std::cos(0.37f * float(i));
  auto y = graph::conv2d(s.sub("conv"), x, graph::constant(s, f));
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto input = [&](int seed) {
    tensor t{dtype::float32, {B, H, W, C}};
    for (int64_t i = 0; i < t.num_elements(); ++i)
      t.mutable_data<float>()[i] = std::sin(float(seed) + 0.01f * float(i));
    return t;
  };
  auto direct = [&](const tensor& in) {
    std::vector<double> out(static_cast<size_t>(B * H * W * K), 0.0);
    const float* xp = in.data<float>();
    const float* fp = f.data<float>();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          for (int64_t k = 0; k < K; ++k) {
            double acc = 0;
            for (int64_t dy = 0; dy < 3; ++dy)
              for (int64_t dx = 0; dx < 3; ++dx) {
                auto iy = h + dy - 1, ix = w + dx - 1; // SAME padding
                if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                  continue;
                for (int64_t c = 0; c < C; ++c)
                  acc += double(xp[((b * H + iy) * W + ix) * C + c])
                         * double(fp[((dy * 3 + dx) * C + c) * K + k]);
              }
            out[static_cast<size_t>(((b * H + h) * W + w) * K + k)] = acc;
          }
    return out;
  };
  std::vector<tensor> results(8);
  std::vector<core::status> statuses(8);
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&, k] {
      std::vector<tensor> out;
      statuses[static_cast<size_t>(k)]
        = sess.run({{x.name(), input(k)}}, {y.name()}, {}, &out);
      if (!out.empty())
        results[static_cast<size_t>(k)] = out[0];
    });
  for (auto& t : threads)
    t.join();
  for (int k = 0; k < 8; ++k) {
    ASSERT_TRUE(statuses[static_cast<size_t>(k)].is_ok())
      << statuses[static_cast<size_t>(k)].to_string();
    auto want = direct(input(k));
    const auto& got = results[static_cast<size_t>(k)];
    ASSERT_EQ(got.num_elements(), static_cast<int64_t>(want.size()));
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i)
      worst = std::max(worst, std::abs(double(got.data<float>()[i]) - want[i])
                                / std::max(1.0, std::abs(want[i])));
    EXPECT_LT(worst, 1e-4) << "step " << k;
  }
}
