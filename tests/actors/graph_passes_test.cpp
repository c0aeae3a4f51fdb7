// The graph passes through sessions: every run below is made with all
// passes and with none, and the results must be the same; the partitions
// the step ran show what the passes rewrote. (Every other session test
// runs with the passes on, the default.)

#include <cmath>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "common/golden.hpp"
#include "common/loop_cases.hpp"
#include "common/small_mlp.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

/// A session option that runs the passes `text` names.
actors::session_options with_passes(const std::string& text) {
  actors::session_options o;
  EXPECT_TRUE(graph::pass_selection::parse(text, &o.pass_selection).is_ok());
  return o;
}

/// How many nodes of op `op` the partitions of `md` have.
int count_op(const actors::run_metadata& md, const std::string& op) {
  int n = 0;
  for (const auto& part : md.partition_graphs)
    for (const auto& node : part.nodes())
      n += node.op == op ? 1 : 0;
  return n;
}

/// The names of the nodes of op `op` in the partitions of `md`.
std::vector<std::string> names_of(const actors::run_metadata& md,
                                  const std::string& op) {
  std::vector<std::string> names;
  for (const auto& part : md.partition_graphs)
    for (const auto& node : part.nodes())
      if (node.op == op)
        names.push_back(node.name);
  return names;
}

class graph_passes : public ::testing::Test {
protected:
  /// Builds with `build` in a session with the passes `passes`, runs
  /// `init` then `steps` runs of `fetches` and `targets`; returns the last
  /// run's outputs and its partitions in `md`.
  std::vector<tensor> run(const std::string& passes,
                          const std::function<void(graph::scope&)>& build,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets,
                          actors::feed_list feeds, int steps,
                          actors::run_metadata* md) {
    graph::scope s{e.context().ops()};
    build(s);
    auto init = s.initializer().name;
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e, with_passes(passes)};
    EXPECT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> out;
    auto st = sess.run({}, {}, {init}, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    actors::run_options ro;
    ro.output_partition_graphs = true;
    for (int i = 0; i < steps; ++i) {
      st = sess.run(ro, feeds, fetches, targets, &out, md);
      EXPECT_TRUE(st.is_ok()) << st.to_string();
    }
    return out;
  }

  /// Runs three steps of the training graph `build` makes with all passes
  /// and with none: `fetched` (filled by `build`) names the values to
  /// fetch, then the train op. Expects the same values within `rtol`;
  /// gives each run's partitions.
  void expect_same_with_and_without(
    const std::function<void(graph::scope&)>& build,
    const std::vector<std::string>& fetched, const actors::feed_list& feeds,
    double rtol, actors::run_metadata* all_md, actors::run_metadata* none_md) {
    { // the names are known once the graph is built
      graph::scope s{e.context().ops()};
      build(s);
    }
    std::vector<std::string> fetches(fetched.begin(), fetched.end() - 1);
    std::vector<std::string> targets{fetched.back()};
    auto all = run("all", build, fetches, targets, feeds, 3, all_md);
    auto none = run("none", build, fetches, targets, feeds, 3, none_md);
    ASSERT_EQ(all.size(), none.size());
    for (size_t i = 0; i < all.size(); ++i)
      test::expect_all_near(all[i], none[i], rtol, fetches[i]);
  }

  actors::engine e;
};

} // namespace

TEST_F(graph_passes, a_training_step_trains_the_same_with_and_without) {
  // Two dense layers in float64 with ReLU, a loss with constant
  // sub-expressions to fold and repeated ones to merge, three SGD steps.
  std::vector<std::string> fetched;
  auto build = [&](graph::scope& s) {
    auto x = graph::placeholder(s.sub("x"), dtype::float64, {4, 3});
    test::small_mlp mlp{s};
    auto [w1, b1, w2, b2] = mlp;
    auto h = graph::relu(s, graph::bias_add(s, graph::matmul(s, x, w1), b1));
    auto y = graph::bias_add(s, graph::matmul(s, h, w2), b2);
    auto scale = graph::mul(s, graph::constant(s, 0.5, dtype::float64),
                            graph::constant(s, 2.0, dtype::float64));
    auto loss = graph::mul(
      s,
      graph::add(s, graph::reduce_sum(s, graph::square(s, y), {0, 1}),
                 graph::reduce_sum(s, graph::square(s, y), {0, 1})),
      scale);
    graph::optimizer sgd;
    sgd.learning_rate = 0.01;
    auto train = graph::minimize(s.sub("train"), loss, {w1, b1, w2, b2}, sgd);
    fetched
      = {loss.name(), w1.name(), b1.name(), w2.name(), b2.name(), train.name};
  };
  auto x = tensor::from_vector<double>(
    {4, 3}, {1, 2, 3, -1, 0.5, 2, 0, 0, 1, 3, -2, 0.25});
  actors::run_metadata all_md, none_md;
  expect_same_with_and_without(build, fetched, {{"x", x}}, 1e-12, &all_md,
                               &none_md);
  // Both layers fused, the forward pass's repeated square merged, both
  // weights' gradient products applied as they are made.
  EXPECT_EQ(count_op(all_md, "_FusedMatMul"), 2);
  EXPECT_EQ(count_op(none_md, "_FusedMatMul"), 0);
  EXPECT_EQ(count_op(all_md, "_MatMulApplyGradientDescent"), 2);
  EXPECT_EQ(count_op(none_md, "_MatMulApplyGradientDescent"), 0);
  EXPECT_EQ(count_op(all_md, "_MatMulReluGrad"), 1);
  EXPECT_EQ(count_op(none_md, "_MatMulReluGrad"), 0);
  EXPECT_LT(count_op(all_md, "Square"), count_op(none_md, "Square"));
}

TEST_F(graph_passes, a_float32_step_applies_its_gradients_the_same) {
  // float32 (oneDNN: the update as an output scale and a sum post-op, the
  // hidden layer's ReluGrad applied to each block of its product), layers
  // large enough that each product is cut over the device's two threads,
  // three SGD steps with and without the passes.
  std::vector<std::string> fetched;
  auto values = [](const std::vector<int64_t>& dims, float scale) {
    tensor t{dtype::float32, core::shape{dims}};
    for (int64_t i = 0; i < t.num_elements(); ++i)
      t.mutable_data<float>()[i] = scale * std::sin(0.37f * float(i) + 0.1f);
    return t;
  };
  auto build = [&](graph::scope& s) {
    auto x = graph::placeholder(s.sub("x"), dtype::float32, {64, 128});
    auto w1 = graph::variable(s.sub("fw1"),
                              graph::constant(s, values({128, 256}, 0.1f)));
    auto w2 = graph::variable(s.sub("fw2"),
                              graph::constant(s, values({256, 64}, 0.1f)));
    auto h = graph::relu(s, graph::matmul(s, x, w1));
    auto loss
      = graph::reduce_sum(s, graph::square(s, graph::matmul(s, h, w2)), {0, 1});
    graph::optimizer sgd;
    sgd.learning_rate = 0.001;
    auto train = graph::minimize(s.sub("train"), loss, {w1, w2}, sgd);
    fetched = {loss.name(), w1.name(), w2.name(), train.name};
  };
  actors::run_metadata all_md, none_md;
  expect_same_with_and_without(build, fetched, {{"x", values({64, 128}, 1.0f)}},
                               1e-5, &all_md, &none_md);
  EXPECT_EQ(count_op(all_md, "_MatMulApplyGradientDescent"), 2);
  EXPECT_EQ(count_op(none_md, "_MatMulApplyGradientDescent"), 0);
  EXPECT_EQ(count_op(all_md, "_MatMulReluGrad"), 1);
}

TEST_F(graph_passes, a_convolutional_step_trains_the_same_with_and_without) {
  // Conv2D + BiasAdd + Relu, max pooling, three SGD steps, in float32
  // (oneDNN, the bias and Relu as its post-ops when fused) and float64.
  for (auto type : {dtype::float32, dtype::float64}) {
    std::vector<std::string> fetched;
    auto values = [&](const std::vector<int64_t>& dims, double scale) {
      tensor t{dtype::float64, core::shape{dims}};
      for (int64_t i = 0; i < t.num_elements(); ++i)
        t.mutable_data<double>()[i] = scale * std::sin(0.7 * double(i) + 0.3);
      return t;
    };
    // Variables outlive sessions in the engine: names per dtype.
    auto named = [&](const char* name) {
      return name + std::string{type == dtype::float32 ? "32" : "64"};
    };
    auto build = [&](graph::scope& s) {
      auto x = graph::placeholder(s.sub("x"), type, {2, 6, 6, 3});
      auto f = graph::variable(
        s.sub(named("f")),
        graph::cast(s, graph::constant(s, values({3, 3, 3, 4}, 0.5)), type));
      auto b = graph::variable(
        s.sub(named("b")),
        graph::cast(s, graph::constant(s, values({4}, 0.1)), type));
      graph::window_options pool;
      pool.stride_h = pool.stride_w = 2;
      auto h = graph::max_pool(
        s, graph::relu(s, graph::bias_add(s, graph::conv2d(s, x, f, {}), b)), 2,
        2, pool);
      auto loss = graph::reduce_sum(s, graph::square(s, h), {0, 1, 2, 3});
      graph::optimizer sgd;
      sgd.learning_rate = 0.01;
      auto train = graph::minimize(s.sub("train"), loss, {f, b}, sgd);
      fetched = {loss.name(), f.name(), b.name(), train.name};
    };
    auto x = values({2, 6, 6, 3}, 1.0);
    if (type == dtype::float32) {
      tensor x32{dtype::float32, x.shape()};
      for (int64_t i = 0; i < x.num_elements(); ++i)
        x32.mutable_data<float>()[i] = static_cast<float>(x.data<double>()[i]);
      x = x32;
    }
    actors::run_metadata all_md, none_md;
    expect_same_with_and_without(build, fetched, {{"x", x}},
                                 type == dtype::float32 ? 1e-5 : 1e-12, &all_md,
                                 &none_md);
    EXPECT_EQ(count_op(all_md, "_FusedConv2D"), 1);
    EXPECT_EQ(count_op(none_md, "_FusedConv2D"), 0);
    // The ReluGrad runs on the pooled gradient, under the MaxPoolGrad.
    auto relu_grads = names_of(all_md, "ReluGrad");
    ASSERT_EQ(relu_grads.size(), 1u);
    EXPECT_NE(relu_grads[0].find("/pooled"), std::string::npos);
    EXPECT_EQ(names_of(none_md, "ReluGrad").size(), 1u);
  }
}

TEST_F(graph_passes, loops_compute_the_same_with_and_without) {
  std::vector<std::string> fetches;
  auto build = [&](graph::scope& s) {
    auto n = graph::placeholder(s.sub("n"), dtype::int64);
    auto outs = test::halving_loop(s, n, "");
    // A gradient through a loop, with foldable constants in its body.
    auto v0 = graph::placeholder(s.sub("v0"), dtype::float64);
    auto looped = graph::while_loop(
      s.sub("grad_loop"),
      [&](const graph::scope& c, const std::vector<graph::output>& v) {
        return graph::less(c, v[0], graph::constant(c, 4.0));
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        auto k = graph::add(b, graph::constant(b, 0.25, dtype::float64),
                            graph::constant(b, 0.5, dtype::float64));
        return std::vector<graph::output>{
          graph::add(b, v[0], graph::constant(b, 1.0)),
          graph::mul(b, graph::mul(b, v[1], v[1]), k)};
      },
      {graph::constant(s, 0.0), v0});
    auto grad = graph::gradients(s.sub("grad"), {looped[1]}, {v0});
    // A ReluGrad of a MaxPoolGrad in a body, overlapping windows (the
    // arithmetic pass's rewrite must give the same bits).
    auto image
      = graph::placeholder(s.sub("image"), dtype::float32, {1, 4, 4, 2});
    auto pooled = test::relu_pool_grad_loop(s.sub("pool_loop"), image);
    fetches = {outs[0].name(), outs[1].name(), looped[1].name(),
               grad[0]->name(), pooled[1].name()};
  };
  // The fetches' names are known once the graph is built.
  {
    graph::scope s{e.context().ops()};
    build(s);
  }
  tensor image{dtype::float32, core::shape{{1, 4, 4, 2}}};
  for (int64_t i = 0; i < image.num_elements(); ++i)
    image.mutable_data<float>()[i] = std::sin(1.3f * float(i));
  actors::feed_list feeds{{"n", tensor::scalar<int64_t>(7)},
                          {"v0", tensor::scalar<double>(0.9)},
                          {"image", image}};
  actors::run_metadata all_md, none_md;
  auto all = run("all", build, fetches, {}, feeds, 2, &all_md);
  auto none = run("none", build, fetches, {}, feeds, 2, &none_md);
  ASSERT_EQ(all.size(), 5u);
  for (size_t i = 0; i < all.size(); ++i)
    test::expect_all_near(all[i], none[i], 0.0, fetches[i]);
  // The body's 0.25 + 0.5 became a constant inside the loop.
  EXPECT_LT(count_op(all_md, "Add"), count_op(none_md, "Add"));
  // The pool loop's ReluGrad runs on the pooled gradient.
  EXPECT_EQ(names_of(all_md, "ReluGrad").size(), 1u);
  for (const auto& name : names_of(all_md, "ReluGrad"))
    EXPECT_NE(name.find("/pooled"), std::string::npos) << name;
}

TEST_F(graph_passes, unchanged_loop_variables_become_constants) {
  // A loop whose body passes its bound and its scale back unchanged: the
  // bound (read by the condition alone, its Exit unread) becomes a
  // constant Enter -- its Merge, Switch and NextIteration no longer run
  // every iteration -- while the scale, fetched after the loop, keeps its
  // own. The same values either way.
  std::vector<std::string> fetches;
  auto build = [&](graph::scope& s) {
    auto limit = graph::placeholder(s.sub("limit"), dtype::int64);
    auto scale = graph::placeholder(s.sub("scale"), dtype::float64);
    auto outs = graph::while_loop(
      s.sub("loop"),
      [&](const graph::scope& c, const std::vector<graph::output>& v) {
        return graph::less(c, v[0], v[2]);
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        return std::vector<graph::output>{
          graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)),
          graph::add(b, graph::mul(b, v[1], v[3]),
                     graph::constant(b, 1.0, dtype::float64)),
          v[2], v[3]};
      },
      {graph::constant(s.sub("i0"), 0.0, dtype::int64),
       graph::constant(s.sub("x0"), 0.5, dtype::float64), limit, scale});
    fetches = {outs[1].name(), outs[3].name()};
  };
  {
    graph::scope s{e.context().ops()};
    build(s);
  }
  actors::feed_list feeds{{"limit", tensor::scalar<int64_t>(9)},
                          {"scale", tensor::scalar<double>(0.75)}};
  actors::run_metadata all_md, none_md;
  auto all = run("all", build, fetches, {}, feeds, 2, &all_md);
  auto none = run("none", build, fetches, {}, feeds, 2, &none_md);
  ASSERT_EQ(all.size(), 2u);
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(all[0], none[0]);
  EXPECT_EQ(all[1], none[1]);
  double x = 0.5;
  for (int i = 0; i < 9; ++i)
    x = x * 0.75 + 1;
  EXPECT_EQ(all[0].scalar_value<double>(), x);
  EXPECT_EQ(count_op(none_md, "Merge"), 4);
  EXPECT_EQ(count_op(all_md, "Merge"), 3);
  EXPECT_EQ(count_op(all_md, "NextIteration"), 3);
}

TEST_F(graph_passes, a_constant_filter_kept_reordered_gives_the_same) {
  // A Const filter is reordered to oneDNN's layout once and kept: runs
  // after the first, and images of another batch (another plan), give
  // what the filter fed as a Placeholder gives, bit for bit.
  std::vector<float> k(3 * 3 * 8 * 16);
  for (size_t i = 0; i < k.size(); ++i)
    k[i] = static_cast<float>(static_cast<int>(i * 7 % 17) - 8) / 8;
  auto filter = tensor::from_vector<float>({3, 3, 8, 16}, k);
  graph::scope s{e.context().ops()};
  auto x
    = graph::placeholder(s.sub("x"), dtype::float32, core::shape{-1, 6, 6, 8});
  auto f = graph::placeholder(s.sub("f"), dtype::float32, {3, 3, 8, 16});
  auto by_const
    = graph::conv2d(s.sub("by_const"), x, graph::constant(s, filter));
  auto by_feed = graph::conv2d(s.sub("by_feed"), x, f);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e, with_passes("all")};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  for (int64_t batch : {1, 1, 3, 1}) {
    std::vector<float> v(static_cast<size_t>(batch * 6 * 6 * 8));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 4;
    std::vector<tensor> out;
    auto st
      = sess.run({{x.name(), tensor::from_vector<float>({batch, 6, 6, 8}, v)},
                  {f.name(), filter}},
                 {by_const.name(), by_feed.name()}, {}, &out);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    EXPECT_EQ(out[0], out[1]) << "batch " << batch;
  }
}

TEST_F(graph_passes, a_fused_gelu_gives_what_its_five_nodes_give) {
  // tf.nn.gelu's nodes run as one _GeluExact: float32 over 5,000
  // elements through oneDNN's gelu_erf (within 2e-7 max(1, |x|) of the
  // five nodes), over 7 through Erfc's float32 erfc (within 1e-6: Eigen
  // may take an element through the packet function or, at the tail, the
  // C library's), float64 bit for bit.
  for (auto [type, n] : {std::pair{dtype::float32, int64_t{5000}},
                         std::pair{dtype::float32, int64_t{7}},
                         std::pair{dtype::float64, int64_t{5000}}}) {
    tensor x{dtype::float64, core::shape{n}};
    for (int64_t i = 0; i < n; ++i)
      x.mutable_data<double>()[i] = -12.0 + 20.0 * double(i) / double(n - 1);
    if (type == dtype::float32) {
      tensor f{dtype::float32, core::shape{n}};
      for (int64_t i = 0; i < n; ++i)
        f.mutable_data<float>()[i] = static_cast<float>(x.data<double>()[i]);
      x = f;
    }
    std::string x_name, y_name;
    auto build = [&](graph::scope& s) {
      auto in = graph::placeholder(s.sub("x"), type, {n});
      x_name = in.name();
      y_name = graph::gelu(s.sub("y"), in).name();
    };
    { // the names are known once the graph is built
      graph::scope s{e.context().ops()};
      build(s);
    }
    actors::run_metadata all_md, none_md;
    auto all = run("all", build, {y_name}, {}, {{x_name, x}}, 1, &all_md);
    auto none = run("none", build, {y_name}, {}, {{x_name, x}}, 1, &none_md);
    EXPECT_EQ(count_op(all_md, "_GeluExact"), 1);
    EXPECT_EQ(count_op(none_md, "_GeluExact"), 0);
    ASSERT_EQ(all.size(), 1u);
    ASSERT_EQ(none.size(), 1u);
    if (type == dtype::float64) {
      EXPECT_EQ(all[0], none[0]);
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      double v = x.data<float>()[i];
      double tol = n > 2048 ? 2e-7 * std::max(1.0, std::abs(v))
                            : 1e-6 * std::abs(none[0].data<float>()[i]);
      EXPECT_NEAR(all[0].data<float>()[i], none[0].data<float>()[i], tol)
        << "x = " << v;
    }
  }
}

TEST_F(graph_passes, a_keras_block_of_constant_learning_phase_fuses_exactly) {
  // What tf.compat.v1 Keras writes: a batch norm's training and inference
  // forms in a cond on the learning phase, a PlaceholderWithDefault(false),
  // after Conv2D + BiasAdd, then Relu6; then a Pad, a VALID depthwise
  // convolution, an inference batch norm and Relu. Unfed, the cond goes
  // (dead_branches) and each chain is one _FusedConvBatchNorm (batch 1 in
  // bands of rows; the Pad the convolution's padding),
  // bit for bit what the nodes give one by one; fed true, the cond stays
  // and the training branch runs.
  auto values
    = [](std::vector<int64_t> dims, double seed, double lo, double hi) {
        core::shape shape{dims};
        std::vector<float> v(static_cast<size_t>(shape.num_elements()));
        for (size_t i = 0; i < v.size(); ++i)
          v[i] = static_cast<float>(
            lo + (hi - lo) * (0.5 + 0.5 * std::sin(seed + 1.7 * double(i))));
        return tensor::from_vector<float>(shape, v);
      };
  std::string x_name, learning_name, y_name;
  auto build = [&](graph::scope& s) {
    auto c = [&](std::vector<int64_t> dims, double seed, double lo = -1,
                 double hi = 1) {
      return graph::constant(s, values(std::move(dims), seed, lo, hi));
    };
    auto x = graph::placeholder(s.sub("x"), dtype::float32,
                                core::shape{-1, 32, 32, 16});
    auto learning = s.add_node(
      "PlaceholderWithDefault", "learning", {graph::constant(s, false)},
      {{"dtype", dtype::bool_}, {"shape", core::shape{}}});
    auto conv = graph::bias_add(s, graph::conv2d(s, x, c({3, 3, 16, 32}, 0.1)),
                                c({32}, 0.2));
    auto g = c({32}, 0.3, 0.5, 2), o = c({32}, 0.4), m = c({32}, 0.5),
         v = c({32}, 0.6, 0.5, 3);
    auto normed = graph::cond(
      s.sub("bn"), learning.at(0),
      [&](const graph::scope& b) {
        return std::vector<graph::output>{
          graph::fused_batch_norm(b, conv, g, o, m, v, true).y};
      },
      [&](const graph::scope& b) {
        return std::vector<graph::output>{
          graph::fused_batch_norm(b, conv, g, o, m, v, false, 1e-3).y};
      });
    // ZeroPadding2D's Pad before a VALID strided DepthwiseConv2D, as
    // MobileNetV2 writes it: the convolution pads instead.
    auto padded
      = s.add_node("Pad", "pad",
                   {graph::relu6(s, normed[0]),
                    graph::constant(s, tensor::from_vector<int32_t>(
                                         {4, 2}, {0, 0, 0, 1, 0, 1, 0, 0}))},
                   {{"T", dtype::float32}, {"Tpaddings", dtype::int32}});
    auto dw = s.add_node("DepthwiseConv2dNative", "dw",
                         {padded.at(0), c({3, 3, 32, 2}, 0.7)},
                         {{"T", dtype::float32},
                          {"strides", std::vector<int64_t>{1, 2, 2, 1}},
                          {"padding", std::string{"VALID"}}});
    auto y = graph::relu(s, graph::fused_batch_norm(
                              s, dw.at(0), c({64}, 0.8, 0.5, 2), c({64}, 0.9),
                              c({64}, 1.0), c({64}, 1.1, 0.5, 3), false)
                              .y);
    x_name = x.name();
    learning_name = learning[0].name();
    y_name = y.name();
  };
  { // the names are known once the graph is built
    graph::scope s{e.context().ops()};
    build(s);
  }
  for (int64_t batch : {1, 3}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    auto x = values({batch, 32, 32, 16}, 1.2, -2, 2);
    actors::run_metadata all_md, none_md;
    auto all = run("all", build, {y_name}, {}, {{x_name, x}}, 2, &all_md);
    auto none = run("none", build, {y_name}, {}, {{x_name, x}}, 1, &none_md);
    EXPECT_EQ(count_op(all_md, "_FusedConvBatchNorm"), 2);
    EXPECT_EQ(count_op(all_md, "Switch"), 0);
    EXPECT_EQ(count_op(all_md, "Pad"), 0);
    ASSERT_EQ(all.size(), 1u);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_EQ(all[0], none[0]);
    actors::feed_list training{{x_name, x},
                               {learning_name, tensor::scalar(true)}};
    all = run("all", build, {y_name}, {}, training, 1, &all_md);
    none = run("none", build, {y_name}, {}, training, 1, &none_md);
    EXPECT_EQ(count_op(all_md, "_FusedConvBatchNorm"), 1);
    EXPECT_GT(count_op(all_md, "Switch"), 0);
    EXPECT_EQ(all[0], none[0]);
  }
}

TEST_F(graph_passes, a_run_option_overrides_the_session) {
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2, 2});
  auto w = graph::constant(s.sub("w"),
                           tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}));
  auto b
    = graph::constant(s.sub("b"), tensor::from_vector<float>({2}, {1, -20}));
  auto y = graph::relu(s, graph::bias_add(s, graph::matmul(s, x, w), b));
  actors::session sess{e}; // all passes
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto in = tensor::from_vector<float>({2, 2}, {1, 0, 0, 1});
  for (const char* passes : {"none", "all", "-fusion"}) {
    actors::run_options ro;
    ro.output_partition_graphs = true;
    ro.passes.emplace();
    ASSERT_TRUE(graph::pass_selection::parse(passes, &*ro.passes).is_ok());
    std::vector<tensor> out;
    actors::run_metadata md;
    ASSERT_TRUE(
      sess.run(ro, {{x.name(), in}}, {y.name()}, {}, &out, &md).is_ok());
    EXPECT_EQ(count_op(md, "_FusedMatMul"), std::string{passes} == "all")
      << passes;
    EXPECT_EQ(out[0].flat<float>()(0), 2.0f);
    EXPECT_EQ(out[0].flat<float>()(1), 0.0f);
    EXPECT_EQ(out[0].flat<float>()(3), 0.0f);
  }
}
