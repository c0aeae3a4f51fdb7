// The graph passes one by one: what each rewrites, and what it must leave
// alone. Results through sessions are in tests/actors/graph_passes_test.cpp.

#include "actorflow/graph/graph_passes.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "actorflow/graph/validate.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "common/loop_cases.hpp"
#include "compile/graph_index.hpp"

using namespace actorflow;
using core::dtype;

namespace {

class optimization_passes : public ::testing::Test {
protected:
  optimization_passes() {
    EXPECT_TRUE(ops::register_ops(registry).is_ok());
    ops::register_cpu_kernels(kernels);
  }

  /// Runs `pass` over the graph of `s` with `keep`; expects success and a
  /// valid graph; returns the graph and fills `log`.
  graph::graph run(const graph::scope& s, const graph::pass_function& pass,
                   std::vector<std::string>* log,
                   std::set<std::string> keep = {},
                   std::string default_device = "") {
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    graph::graph g = s.graph_def();
    graph::pass_context ctx{registry, kernels, std::move(keep),
                            std::move(default_device)};
    auto st = pass(g, ctx, log);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    graph::graph_types types;
    st = graph::validate(g, registry, &types);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return g;
  }

  ops::op_registry registry;
  ops::kernel_registry kernels;
};

/// Data input `i` of node `name` in `g`.
core::input_ref input_of(const graph::graph& g, const std::string& name,
                         size_t i = 0) {
  core::input_ref in;
  EXPECT_TRUE(core::input_ref::parse(g.find(name)->inputs.at(i), &in));
  return in;
}

/// The op of node `name` in `g`, or "" if it is gone.
std::string op_of(const graph::graph& g, const std::string& name) {
  const auto* n = g.find(name);
  return n == nullptr ? "" : n->op;
}

} // namespace

TEST_F(optimization_passes, cse_merges_equal_nodes_and_their_chains) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32);
  auto c1 = graph::constant(s.sub("c1"), 2.0f);
  auto c2 = graph::constant(s.sub("c2"), 2.0f);
  auto c3 = graph::constant(s.sub("c3"), 3.0f);
  auto a1 = graph::add(s.sub("a1"), x, c1);
  auto a2 = graph::add(s.sub("a2"), x, c2);
  auto m1 = graph::mul(s.sub("m1"), a1, x);
  auto m2 = graph::mul(s.sub("m2"), a2, x);
  auto other = graph::add(s.sub("other"), x, c3);
  auto sum = graph::add_n(s.sub("sum"), {m1, m2, other});
  std::vector<std::string> log;
  auto g = run(s, graph::passes::common_subexpressions, &log);
  // c2 is c1, so a2 is a1, so m2 is m1: in one pass, in order.
  EXPECT_EQ(log.size(), 3u);
  for (const auto& gone : {c2, a2, m2})
    EXPECT_EQ(g.find(gone.node_name()), nullptr) << gone.node_name();
  EXPECT_NE(g.find(other.node_name()), nullptr); // another value
  EXPECT_NE(g.find(c3.node_name()), nullptr);
  const auto* n = g.find(sum.node_name());
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->inputs[0], m1.name());
  EXPECT_EQ(n->inputs[1], m1.name());
  EXPECT_EQ(n->inputs[2], other.name());
}

TEST_F(optimization_passes,
       cse_leaves_stateful_nodes_devices_controls_and_targets) {
  graph::scope s{registry};
  auto r1 = graph::random_uniform(s.sub("r1"), {2});
  auto r2 = graph::random_uniform(s.sub("r2"), {2});
  auto x = graph::placeholder(s.sub("x"), dtype::float32);
  auto on0 = graph::identity(s.sub("i0").with_device("/device:cpu:0"), x);
  auto on1 = graph::identity(s.sub("i1").with_device("/device:cpu:1"), x);
  auto gate = graph::no_op(s.sub("gate"));
  auto gated
    = graph::identity(s.sub("gated").with_control_dependencies({gate}), x);
  auto plain = graph::identity(s.sub("plain"), x);
  auto kept = graph::identity(s.sub("kept"), x);
  auto sum = graph::add_n(s.sub("sum"), {r1, r2, on0, on1, gated, plain, kept});
  std::vector<std::string> log;
  auto g
    = run(s, graph::passes::common_subexpressions, &log, {kept.node_name()});
  // Only the random ops' equal shape constants merge.
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("(Const)"), std::string::npos) << log[0];
  for (const auto& stays : {r1, r2, on0, on1, gated, plain, kept})
    EXPECT_NE(g.find(stays.node_name()), nullptr) << stays.node_name();
  (void)sum;
}

TEST_F(optimization_passes, constant_folding_replaces_a_constant_expression) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32);
  auto two = graph::constant(s.sub("two"), 2.0f);
  auto three = graph::constant(s.sub("three"), 3.0f);
  auto six = graph::mul(s.sub("six"), two, three);
  auto seven
    = graph::add(s.sub("seven"), six, graph::constant(s.sub("one"), 1.0f));
  auto y = graph::mul(s.sub("y"), x, seven);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::constant_folding, &log);
  ASSERT_EQ(log.size(), 2u); // six, then seven from it
  const auto* n = g.find(seven.node_name());
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->op, "Const");
  EXPECT_TRUE(n->inputs.empty());
  EXPECT_EQ(std::get<core::tensor>(n->attrs.at("value")).scalar_value<float>(),
            7.0f);
  EXPECT_EQ(op_of(g, y.node_name()), "Mul"); // x is not constant
}

TEST_F(optimization_passes,
       constant_folding_keeps_a_loop_constant_in_its_frame) {
  graph::scope s{registry};
  std::string folded;
  auto out = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 5.0));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      // In a frame, constants hang off the loop's pivot by control edges.
      auto k = graph::mul(b.sub("k"), graph::constant(b, 0.5),
                          graph::constant(b, 4.0));
      folded = k.node_name();
      return std::vector<graph::output>{graph::add(b, v[0], k)};
    },
    {graph::constant(s, 0.0)});
  std::vector<std::string> log;
  auto g = run(s, graph::passes::constant_folding, &log);
  const auto* n = g.find(folded);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->op, "Const");
  // It keeps its inputs' control input from the frame.
  ASSERT_FALSE(n->inputs.empty());
  EXPECT_EQ(n->inputs[0][0], '^');
}

TEST_F(optimization_passes, constant_folding_skips_stateful_and_large_nodes) {
  graph::scope s{registry};
  auto r = graph::random_uniform(s.sub("r"), {2});
  // 4 Mi floats = 16 MiB, past the limit.
  auto big = graph::fill(s.sub("big"), {4 << 20}, graph::constant(s, 1.0f));
  std::vector<std::string> log;
  auto g = run(s, graph::passes::constant_folding, &log);
  EXPECT_TRUE(log.empty()) << log[0];
  EXPECT_EQ(op_of(g, r.node_name()), "RandomUniform");
  EXPECT_EQ(op_of(g, big.node_name()), "Fill");
}

TEST_F(optimization_passes, fusion_makes_one_node_of_matmul_bias_and_relu) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {4, 3});
  auto w = graph::placeholder(s.sub("w"), dtype::float32, {5, 3});
  auto b = graph::placeholder(s.sub("b"), dtype::float32, {5});
  auto mm = graph::matmul(s.sub("mm"), x, w, {false, true});
  auto biased = graph::bias_add(s.sub("biased"), mm, b);
  auto h = graph::relu(s.sub("h"), biased);
  auto y = graph::square(s.sub("y"), h);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::fusion, &log);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(g.find(mm.node_name()), nullptr);
  EXPECT_EQ(g.find(biased.node_name()), nullptr);
  const auto* n = g.find(h.node_name());
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->op, "_FusedMatMul");
  EXPECT_EQ(n->inputs,
            (std::vector<std::string>{x.name(), w.name(), b.name()}));
  EXPECT_EQ(std::get<bool>(n->attrs.at("transpose_b")), true);
  EXPECT_EQ(std::get<std::vector<std::string>>(n->attrs.at("fused_ops")),
            (std::vector<std::string>{"BiasAdd", "Relu"}));
  EXPECT_EQ(g.find(y.node_name())->inputs[0], h.name());
}

TEST_F(optimization_passes, fusion_makes_one_gelu_of_tf_nn_gelus_five_nodes) {
  // tf.nn.gelu(approximate=False)'s Mul, Neg, Mul, Erfc, Mul become one
  // _GeluExact named after the last Mul, in float32 and float64. One
  // whose Erfc is kept (fetched) and one whose constant is float32's
  // 1/sqrt(2) cast to float64 (not TensorFlow's float64 constant) stay.
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {4, 3});
  auto x64 = graph::placeholder(s.sub("x64"), dtype::float64, {4, 3});
  auto y = graph::gelu(s.sub("y"), x);
  auto y64 = graph::gelu(s.sub("y64"), x64);
  auto read_twice = graph::gelu(s.sub("read_twice"), x);
  auto erfc_of_it = s.graph_def().find(read_twice.node_name())->inputs[1];
  auto other = graph::mul(
    s.sub("other"), graph::mul(s, graph::constant(s, 0.5, dtype::float64), x64),
    graph::erfc(
      s, graph::mul(s, graph::neg(s, x64),
                    graph::constant(s, double(0.70710677f), dtype::float64))));
  std::vector<std::string> log;
  auto g = run(s, graph::passes::fusion, &log,
               {y.node_name(), y64.node_name(), read_twice.node_name(),
                erfc_of_it, other.node_name()});
  ASSERT_EQ(log.size(), 2u);
  for (const auto& out : {y, y64}) {
    const auto* n = g.find(out.node_name());
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->op, "_GeluExact");
    EXPECT_EQ(n->inputs.size(), 1u);
  }
  EXPECT_EQ(g.find(y.node_name())->inputs[0], x.name());
  EXPECT_EQ(std::get<dtype>(g.find(y64.node_name())->attrs.at("T")),
            dtype::float64);
  EXPECT_EQ(op_of(g, read_twice.node_name()), "Mul");
  EXPECT_EQ(op_of(g, other.node_name()), "Mul");
}

TEST_F(optimization_passes, fusion_makes_one_node_of_conv_bias_and_relu) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2, 8, 8, 3});
  auto f = graph::placeholder(s.sub("f"), dtype::float32, {3, 3, 3, 4});
  auto b = graph::placeholder(s.sub("b"), dtype::float32, {4});
  graph::window_options strided;
  strided.stride_h = 2;
  auto conv = graph::conv2d(s.sub("conv"), x, f, strided);
  auto biased = graph::bias_add(s.sub("biased"), conv, b);
  auto h = graph::relu(s.sub("h"), biased);
  auto y = graph::square(s.sub("y"), h);
  // Without the Relu: Conv2D + BiasAdd.
  auto conv2 = graph::conv2d(s.sub("conv2"), x, f);
  auto biased2 = graph::bias_add(s.sub("biased2"), conv2, b);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::fusion, &log);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(g.find(conv.node_name()), nullptr);
  EXPECT_EQ(g.find(biased.node_name()), nullptr);
  const auto* n = g.find(h.node_name());
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->op, "_FusedConv2D");
  EXPECT_EQ(n->inputs,
            (std::vector<std::string>{x.name(), f.name(), b.name()}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(n->attrs.at("strides")),
            (std::vector<int64_t>{1, 2, 1, 1}));
  EXPECT_EQ(std::get<std::vector<std::string>>(n->attrs.at("fused_ops")),
            (std::vector<std::string>{"BiasAdd", "Relu"}));
  EXPECT_EQ(g.find(y.node_name())->inputs[0], h.name());
  EXPECT_EQ(op_of(g, conv2.node_name()), "");
  EXPECT_EQ(op_of(g, biased2.node_name()), "_FusedConv2D");
  EXPECT_EQ(std::get<std::vector<std::string>>(
              g.find(biased2.node_name())->attrs.at("fused_ops")),
            (std::vector<std::string>{"BiasAdd"}));
}

TEST_F(optimization_passes, fusion_marks_convolutions_of_constant_filters) {
  // A Const filter may be kept in the kernel's own layout across runs; a
  // fed one may not.
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {1, 4, 4, 2});
  auto fed = graph::placeholder(s.sub("f"), dtype::float32, {1, 1, 2, 2});
  auto fixed = graph::constant(
    s.sub("k"), core::tensor::from_vector<float>({1, 1, 2, 2}, {1, 2, 3, 4}));
  auto by_const = graph::conv2d(s.sub("by_const"), x, fixed);
  auto by_feed = graph::conv2d(s.sub("by_feed"), x, fed);
  auto g = run(s, graph::passes::fusion, nullptr);
  const auto& marked = g.find(by_const.node_name())->attrs;
  ASSERT_EQ(marked.count("_constant_filter"), 1u);
  EXPECT_TRUE(std::get<bool>(marked.at("_constant_filter")));
  EXPECT_EQ(g.find(by_feed.node_name())->attrs.count("_constant_filter"), 0u);
}

TEST_F(optimization_passes, fusion_stops_where_a_value_has_other_readers) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {4, 3});
  auto w = graph::placeholder(s.sub("w"), dtype::float32, {3, 5});
  auto b = graph::placeholder(s.sub("b"), dtype::float32, {5});
  // The BiasAdd is read twice: MatMul + BiasAdd fuse, the Relu stays.
  auto biased = graph::bias_add(s.sub("biased"), graph::matmul(s, x, w), b);
  auto h = graph::relu(s.sub("h"), biased);
  auto both = graph::add(s.sub("both"), h, biased);
  // The MatMul is read twice: nothing fuses.
  auto shared = graph::matmul(s.sub("shared"), x, w);
  auto b2 = graph::bias_add(s.sub("b2"), shared, b);
  auto also = graph::add(s.sub("also"), b2, shared);
  // A double MatMul has no fused kernel.
  auto xd = graph::placeholder(s.sub("xd"), dtype::int32, {4, 3});
  auto wd = graph::placeholder(s.sub("wd"), dtype::int32, {3, 5});
  auto bd = graph::placeholder(s.sub("bd"), dtype::int32, {5});
  auto ints = graph::bias_add(s.sub("ints"), graph::matmul(s, xd, wd), bd);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::fusion, &log);
  ASSERT_EQ(log.size(), 1u) << log[0];
  EXPECT_EQ(op_of(g, biased.node_name()), "_FusedMatMul");
  EXPECT_EQ(op_of(g, h.node_name()), "Relu");
  EXPECT_EQ(op_of(g, shared.node_name()), "MatMul");
  EXPECT_EQ(op_of(g, b2.node_name()), "BiasAdd");
  EXPECT_EQ(op_of(g, ints.node_name()), "BiasAdd");
  (void)both;
  (void)also;
}

TEST_F(optimization_passes, fusion_applies_weight_gradients_as_they_are_made) {
  // Two dense layers trained by minimize, which gates every update on
  // every gradient: both weights' gradient products and their updates
  // fuse, the gates between two fused updates do not close a cycle, and
  // the updates of the biases (no product) stay.
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {4, 3});
  auto w1 = graph::variable(s.sub("w1"), {3, 5}, dtype::float32);
  auto b1 = graph::variable(s.sub("b1"), {5}, dtype::float32);
  auto w2 = graph::variable(s.sub("w2"), {5, 2}, dtype::float32);
  auto h = graph::relu(s, graph::bias_add(s, graph::matmul(s, x, w1), b1));
  auto y = graph::matmul(s, h, w2);
  auto loss = graph::reduce_sum(s, graph::square(s, y), {0, 1});
  graph::optimizer sgd;
  sgd.learning_rate = 0.1;
  auto train = graph::minimize(s.sub("train"), loss, {w1, b1, w2}, sgd);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::fusion, &log, {train.name});
  int fused = 0, plain = 0;
  for (const auto& node : g.nodes()) {
    fused += node.op == "_MatMulApplyGradientDescent" ? 1 : 0;
    plain += node.op == "ApplyGradientDescent" ? 1 : 0;
  }
  EXPECT_EQ(fused, 2);
  EXPECT_EQ(plain, 1);
  for (const auto& node : g.nodes())
    if (node.op == "_MatMulApplyGradientDescent") {
      EXPECT_EQ(node.inputs[0].rfind(w1.node_name(), 0) == 0
                  || node.inputs[0].rfind(w2.node_name(), 0) == 0,
                true)
        << node.inputs[0];
      EXPECT_TRUE(std::get<bool>(node.attrs.at("transpose_a")));
    }
}

TEST_F(optimization_passes, fusion_masks_input_gradients_as_made) {
  // The gradient of the first layer's output passes the Relu of that
  // layer: ReluGrad(MatMul(dy, w2^T), h) becomes one _MatMulReluGrad named
  // after the ReluGrad. A ReluGrad of a product read twice, or of a kept
  // one, stays.
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {4, 3});
  auto w1 = graph::placeholder(s.sub("w1"), dtype::float32, {3, 5});
  auto w2 = graph::placeholder(s.sub("w2"), dtype::float32, {5, 2});
  auto h = graph::relu(s.sub("h"), graph::matmul(s, x, w1));
  auto y = graph::matmul(s, h, w2);
  auto loss = graph::reduce_sum(s, graph::square(s, y), {0, 1});
  auto dw1 = graph::gradients(s.sub("grad"), {loss}, {w1});
  ASSERT_TRUE(dw1[0].has_value());
  auto relu_grad = s.graph_def().find(dw1[0]->node_name())->inputs[1];
  relu_grad = relu_grad.substr(0, relu_grad.find(':'));
  ASSERT_EQ(op_of(s.graph_def(), relu_grad), "ReluGrad");
  const auto product = s.graph_def().find(relu_grad)->inputs[0];
  auto twice = graph::matmul(s.sub("twice"), x, w1);
  auto masked_twice = s.add_node("ReluGrad", "masked_twice", {twice, h},
                                 {{"T", dtype::float32}})[0];
  auto also = graph::square(s.sub("also"), twice);
  auto kept = graph::matmul(s.sub("kept"), x, w1);
  auto masked_kept = s.add_node("ReluGrad", "masked_kept", {kept, h},
                                {{"T", dtype::float32}})[0];
  std::vector<std::string> log;
  auto g = run(s, graph::passes::fusion, &log,
               {dw1[0]->node_name(), masked_twice.node_name(), also.node_name(),
                kept.node_name(), masked_kept.node_name()});
  ASSERT_EQ(log.size(), 1u) << log[0];
  const auto* fused = g.find(relu_grad);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op, "_MatMulReluGrad");
  EXPECT_EQ(g.find(product), nullptr);
  EXPECT_TRUE(std::get<bool>(fused->attrs.at("transpose_b")));
  EXPECT_EQ(fused->inputs[2], h.name());
  EXPECT_EQ(op_of(g, masked_twice.node_name()), "ReluGrad");
  EXPECT_EQ(op_of(g, twice.node_name()), "MatMul");
  EXPECT_EQ(op_of(g, masked_kept.node_name()), "ReluGrad");
  EXPECT_EQ(op_of(g, kept.node_name()), "MatMul");
}

TEST_F(optimization_passes, fusion_makes_no_op_the_default_device_lacks) {
  // Nodes that ask for no device go to the engine's default device: with
  // a GPU there (and this registry's kernels only on the CPU), no fused op
  // is made that would send them back to a CPU; one that asks for a CPU
  // is fused as before.
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {4, 3});
  auto w = graph::placeholder(s.sub("w"), dtype::float32, {3, 5});
  auto b = graph::placeholder(s.sub("b"), dtype::float32, {5});
  auto y
    = graph::relu(s.sub("y"), graph::bias_add(s, graph::matmul(s, x, w), b));
  auto on_cpu = s.with_device("cpu:0");
  auto z = graph::relu(on_cpu.sub("z"),
                       graph::bias_add(on_cpu, graph::matmul(on_cpu, x, w), b));
  std::vector<std::string> log;
  auto g = run(s, graph::passes::fusion, &log, {y.node_name(), z.node_name()},
               "gpu:0");
  EXPECT_EQ(log.size(), 1u);
  EXPECT_EQ(op_of(g, y.node_name()), "Relu");
  EXPECT_EQ(op_of(g, z.node_name()), "_FusedMatMul");
  log.clear();
  g = run(s, graph::passes::fusion, &log, {y.node_name(), z.node_name()},
          "cpu:0");
  EXPECT_EQ(op_of(g, y.node_name()), "_FusedMatMul");
}

TEST_F(optimization_passes,
       fusion_leaves_gradients_that_are_read_or_read_vars) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {3, 3});
  auto lr = graph::constant(s.sub("lr"), 0.5f);
  // The product is read twice.
  auto v1 = graph::variable(s.sub("v1"), {3, 3}, dtype::float32);
  auto p1 = graph::matmul(s.sub("p1"), x, x);
  auto u1 = graph::apply_gradient_descent(s.sub("u1"), v1, lr, p1);
  auto also = graph::square(s.sub("also"), p1);
  // The product reads a variable the graph changes, by reference.
  auto v2 = graph::variable(s.sub("v2"), {3, 3}, dtype::float32);
  auto p2 = graph::matmul(s.sub("p2"), v2, x);
  auto u2 = graph::apply_gradient_descent(s.sub("u2"), v2, lr, p2);
  std::vector<std::string> log;
  auto g
    = run(s, graph::passes::fusion, &log, {u1.node_name(), u2.node_name()});
  EXPECT_TRUE(log.empty()) << log[0];
  EXPECT_EQ(op_of(g, u1.node_name()), "ApplyGradientDescent");
  EXPECT_EQ(op_of(g, u2.node_name()), "ApplyGradientDescent");
  (void)also;
}

TEST_F(optimization_passes, arithmetic_moves_relu_grad_under_max_pool_grad) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2, 4, 4, 3});
  auto h = graph::relu(s.sub("h"), x);
  graph::window_options pool;
  pool.stride_h = pool.stride_w = 2;
  auto y = graph::max_pool(s.sub("y"), h, 2, 2, pool);
  auto loss
    = graph::reduce_sum(s.sub("loss"), graph::square(s, y), {0, 1, 2, 3});
  auto dx = graph::gradients(s.sub("grad"), {loss}, {x});
  ASSERT_TRUE(dx[0].has_value());
  const auto relu_grad = dx[0]->node_name();
  const auto pool_grad = s.graph_def().find(relu_grad)->inputs[0];
  const auto dy = s.graph_def().find(pool_grad)->inputs[2];
  std::vector<std::string> log;
  auto g = run(s, graph::passes::arithmetic, &log, {relu_grad});
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(g.find(pool_grad), nullptr);
  // The ReluGrad's name now computes MaxPoolGrad(h, y, ReluGrad(dy, y)).
  const auto* n = g.find(relu_grad);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->op, "MaxPoolGrad");
  ASSERT_EQ(n->inputs.size(), 3u);
  EXPECT_EQ(n->inputs[0], h.name());
  EXPECT_EQ(n->inputs[1], y.name());
  const auto* pooled = g.find(n->inputs[2]);
  ASSERT_NE(pooled, nullptr);
  EXPECT_EQ(pooled->op, "ReluGrad");
  EXPECT_EQ(pooled->inputs, (std::vector<std::string>{dy, y.name()}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(n->attrs.at("strides")),
            (std::vector<int64_t>{1, 2, 2, 1}));
}

TEST_F(optimization_passes, arithmetic_leaves_other_relu_grads_alone) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {1, 4, 4, 2});
  auto z = graph::placeholder(s.sub("z"), dtype::float32, {1, 4, 4, 2});
  auto y = graph::max_pool(s.sub("y"), x, 2, 2);
  auto pool_grad = [&](const char* name) {
    return s.sub(name).add_node("MaxPoolGrad", "MaxPoolGrad", {x, y, y},
                                {{"T", dtype::float32},
                                 {"ksize", std::vector<int64_t>{1, 2, 2, 1}},
                                 {"strides", std::vector<int64_t>{1, 1, 1, 1}},
                                 {"padding", std::string{"SAME"}}})[0];
  };
  auto relu_grad = [&](const char* name, const graph::output& grad,
                       const graph::output& features) {
    return s.sub(name).add_node("ReluGrad", "ReluGrad", {grad, features},
                                {{"T", dtype::float32}})[0];
  };
  // Features other than the pooled input: the identity does not hold.
  auto other = relu_grad("other", pool_grad("p1"), z);
  // A MaxPoolGrad read twice stays, and so its ReluGrad.
  auto twice = pool_grad("p2");
  auto shared = relu_grad("shared", twice, x);
  auto both = graph::add(s.sub("both"), shared, twice);
  // A kept MaxPoolGrad stays.
  auto kept = pool_grad("p3");
  auto of_kept = relu_grad("of_kept", kept, x);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::arithmetic, &log, {kept.node_name()});
  EXPECT_TRUE(log.empty()) << log[0];
  for (const auto& stays : {other, shared, of_kept})
    EXPECT_EQ(op_of(g, stays.node_name()), "ReluGrad") << stays.node_name();
  (void)both;
}

TEST_F(optimization_passes, arithmetic_rewrites_inside_a_loop_body) {
  // The new ReluGrad reads what the MaxPoolGrad read: it stays in the
  // body's frame, and the graph stays valid.
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {1, 4, 4, 2});
  auto looped = test::relu_pool_grad_loop(s.sub("loop"), x);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::arithmetic, &log, {looped[1].node_name()});
  EXPECT_EQ(log.size(), 1u);
}

TEST_F(optimization_passes, identities_forward_values_and_keep_what_they_must) {
  // A chain of Identities and an IdentityN go, their readers reading what
  // they read and waiting for their control inputs. Kept: a node with a
  // control reader (a pivot), one reading a variable (a snapshot), one on
  // another device, a kept one, and one with control inputs that a Merge
  // reads (control flow takes no control inputs moved onto it).
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2});
  auto gate = graph::placeholder(s.sub("gate"), dtype::float32, {2});
  auto a = graph::identity(s.sub("a"), x);
  auto b
    = graph::identity(s.sub("b").with_control_dependencies({gate.op()}), a);
  auto y = graph::square(s.sub("y"), b);
  auto both
    = s.add_node("IdentityN", "both", {x, gate},
                 {{"T", std::vector<dtype>{dtype::float32, dtype::float32}}});
  auto from_n = graph::square(s.sub("from_n"), both[1]);
  auto pivot = graph::identity(s.sub("pivot"), x);
  auto after_pivot = graph::square(
    s.sub("after_pivot").with_control_dependencies({pivot.op()}), x);
  auto v = graph::variable(s.sub("v"), {2}, dtype::float32);
  auto snap = graph::identity(s.sub("snap"), v);
  auto snapshot = graph::square(s.sub("of_v"), snap);
  auto moved = graph::identity(s.sub("moved").with_device("cpu:1"), x);
  auto on_one = graph::square(s.sub("on_one"), moved);
  auto kept = graph::identity(s.sub("kept"), x);
  auto gated
    = graph::identity(s.sub("gated").with_control_dependencies({gate.op()}), x);
  auto merged = s.add_node("Merge", "merged", {gated, x},
                           {{"T", dtype::float32}, {"N", int64_t{2}}});
  std::vector<std::string> log;
  auto g = run(s, graph::passes::identities, &log,
               {y.node_name(), from_n.node_name(), after_pivot.node_name(),
                snapshot.node_name(), on_one.node_name(), kept.node_name(),
                merged[0].node_name()});
  EXPECT_EQ(log.size(), 3u);
  EXPECT_EQ(op_of(g, a.node_name()), "");
  EXPECT_EQ(op_of(g, b.node_name()), "");
  EXPECT_EQ(op_of(g, "both"), "");
  EXPECT_EQ(g.find(y.node_name())->inputs,
            (std::vector<std::string>{x.name(), "^" + gate.node_name()}));
  EXPECT_EQ(g.find(from_n.node_name())->inputs,
            (std::vector<std::string>{gate.name()}));
  for (const auto& stays : {pivot, snap, moved, kept, gated})
    EXPECT_EQ(op_of(g, stays.node_name()), "Identity") << stays.node_name();
}

TEST_F(optimization_passes, identities_drop_control_inputs_data_implies) {
  // A cond's branch node waits on its pivot though its data comes through
  // a Switch of the same predicate: the wait goes. One whose data does
  // not (x itself), one waiting on the other branch's pivot, and one
  // waiting on a pivot that may be dead when the data is live keep it.
  graph::scope s{registry};
  auto pred = graph::placeholder(s.sub("pred"), dtype::bool_, {});
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2});
  auto sw = s.add_node("Switch", "sw", {x, pred}, {{"T", dtype::float32}});
  auto sp = s.add_node("Switch", "sp", {pred, pred}, {{"T", dtype::bool_}});
  auto pivot_t = graph::identity(s.sub("pivot_t"), sp[1]);
  auto pivot_f = graph::identity(s.sub("pivot_f"), sp[0]);
  auto then_y = graph::square(
    s.sub("then_y").with_control_dependencies({pivot_t.op()}), sw[1]);
  auto plain = graph::square(
    s.sub("plain").with_control_dependencies({pivot_t.op()}), x);
  auto crossed = graph::square(
    s.sub("crossed").with_control_dependencies({pivot_f.op()}), sw[1]);
  auto gated = graph::identity(
    s.sub("gated").with_control_dependencies({x.op()}), sp[1]);
  auto behind = graph::identity(s.sub("behind"), gated);
  auto waits = graph::square(
    s.sub("waits").with_control_dependencies({behind.op()}), sw[1]);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::identities, &log,
               {then_y.node_name(), plain.node_name(), crossed.node_name(),
                waits.node_name()});
  EXPECT_EQ(g.find(then_y.node_name())->inputs,
            (std::vector<std::string>{sw[1].name()}));
  EXPECT_EQ(g.find(plain.node_name())->inputs,
            (std::vector<std::string>{x.name(), "^" + pivot_t.node_name()}));
  EXPECT_EQ(
    g.find(crossed.node_name())->inputs,
    (std::vector<std::string>{sw[1].name(), "^" + pivot_f.node_name()}));
  EXPECT_EQ(g.find(waits.node_name())->inputs,
            (std::vector<std::string>{sw[1].name(), "^" + behind.node_name()}));
}

TEST_F(optimization_passes, dead_branches_go_where_a_predicate_is_constant) {
  // Keras' learning phase, folded to false: the cond's true branch goes,
  // the Switches and the Merge forward what the false branch computes.
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {4});
  auto learning = graph::constant(s.sub("learning"), false);
  graph::output train, infer;
  auto out = graph::cond(
    s.sub("bn"), learning,
    [&](const graph::scope& b) {
      train = graph::mul(b.sub("train"), x, x);
      return std::vector<graph::output>{train};
    },
    [&](const graph::scope& b) {
      infer = graph::neg(b.sub("infer"), x);
      return std::vector<graph::output>{infer};
    });
  auto y = graph::relu(s.sub("y"), out[0]);
  // A cond on a fed predicate stays.
  auto p = graph::placeholder(s.sub("p"), dtype::bool_);
  auto kept = graph::cond(
    s.sub("fed"), p,
    [&](const graph::scope& b) {
      return std::vector<graph::output>{graph::exp(b.sub("e"), x)};
    },
    [&](const graph::scope& b) {
      return std::vector<graph::output>{graph::log(b.sub("l"), x)};
    });
  std::vector<std::string> log;
  auto g = run(s, graph::passes::dead_branches, &log);
  EXPECT_EQ(op_of(g, train.node_name()), "") << "the branch that never runs";
  EXPECT_EQ(op_of(g, infer.node_name()), "Neg");
  int switches = 0, merges = 0;
  for (const auto& n : g.nodes()) {
    bool fed = n.name.rfind("fed/", 0) == 0;
    switches += n.op == "Switch" && !fed ? 1 : 0;
    merges += n.op == "Merge" && !fed ? 1 : 0;
  }
  EXPECT_EQ(switches, 0);
  EXPECT_EQ(merges, 0);
  // y reads the Neg (through the branch's output Identity, if any).
  auto in = input_of(g, y.node_name());
  while (g.find(in.node)->op == "Identity")
    in = input_of(g, in.node);
  EXPECT_EQ(in.node, infer.node_name());
  EXPECT_EQ(op_of(g, kept[0].node_name()), "Merge");
  EXPECT_FALSE(log.empty());
  // A target in the branch that never runs: nothing changes.
  log.clear();
  auto same = run(s, graph::passes::dead_branches, &log, {train.node_name()});
  EXPECT_EQ(same.size(), s.graph_def().size());
  EXPECT_TRUE(log.empty());
}

TEST_F(optimization_passes, fusion_makes_one_node_of_conv_batch_norm_relu6) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {1, 6, 6, 4});
  auto vec = [&](const char* name, float v) {
    return graph::constant(s.sub(name),
                           core::tensor::from_vector<float>({4}, {v, v, v, v}));
  };
  auto f = graph::placeholder(s.sub("f"), dtype::float32, {3, 3, 4, 4});
  // Conv2D -> BiasAdd -> inference batch norm -> Relu6.
  auto conv = graph::conv2d(s.sub("conv"), x, f);
  auto biased = graph::bias_add(s.sub("bias"), conv, vec("b", 0.5f));
  auto norm = graph::fused_batch_norm(s.sub("norm"), biased, vec("g", 2.0f),
                                      vec("o", 0.1f), vec("m", 0.2f),
                                      vec("v", 3.0f), false);
  auto y = graph::relu6(s.sub("y"), norm.y);
  // DepthwiseConv2dNative -> inference batch norm, nothing after.
  auto fd = graph::placeholder(s.sub("fd"), dtype::float32, {3, 3, 4, 1});
  auto dw = s.add_node("DepthwiseConv2dNative", "dw", {y, fd},
                       {{"T", dtype::float32},
                        {"strides", std::vector<int64_t>{1, 1, 1, 1}},
                        {"padding", std::string{"SAME"}}});
  ASSERT_EQ(dw.size(), 1u);
  auto norm2 = graph::fused_batch_norm(s.sub("norm2"), dw[0], vec("g2", 1.0f),
                                       vec("o2", 0.0f), vec("m2", 0.0f),
                                       vec("v2", 1.0f), false);
  // A training batch norm, and one whose mean output is read, stay.
  auto training = graph::fused_batch_norm(
    s.sub("training"), graph::conv2d(s.sub("conv3"), x, f), vec("g3", 1.0f),
    vec("o3", 0.0f), vec("m3", 0.0f), vec("v3", 1.0f), true);
  auto read = graph::fused_batch_norm(
    s.sub("read"), graph::conv2d(s.sub("conv4"), x, f), vec("g4", 1.0f),
    vec("o4", 0.0f), vec("m4", 0.0f), vec("v4", 1.0f), false);
  auto mean = graph::identity(s.sub("mean"), read.batch_mean);
  // A zero Pad before a VALID convolution becomes its padding; a Pad of
  // ones stays.
  auto pad_of = [&](const char* name, const char* op, float fill) {
    std::vector<graph::output> in{
      x, graph::constant(s.sub(std::string{name} + "_p"),
                         core::tensor::from_vector<int32_t>(
                           {4, 2}, {0, 0, 1, 2, 0, 1, 0, 0}))};
    if (std::string{op} == "PadV2")
      in.push_back(graph::constant(s.sub(std::string{name} + "_c"), fill));
    return s
      .add_node(op, name, in,
                {{"T", dtype::float32}, {"Tpaddings", dtype::int32}})
      .at(0);
  };
  graph::window_options valid;
  valid.padding = "VALID";
  auto norm5 = graph::fused_batch_norm(
    s.sub("norm5"),
    graph::conv2d(s.sub("conv5"), pad_of("zeros", "Pad", 0), f, valid),
    vec("g5", 1.0f), vec("o5", 0.0f), vec("m5", 0.0f), vec("v5", 1.0f), false);
  auto ones = pad_of("ones", "PadV2", 1.0f);
  auto norm6 = graph::fused_batch_norm(
    s.sub("norm6"), graph::conv2d(s.sub("conv6"), ones, f, valid),
    vec("g6", 1.0f), vec("o6", 0.0f), vec("m6", 0.0f), vec("v6", 1.0f), false);
  std::vector<std::string> log;
  auto g = run(s, graph::passes::fusion, &log);
  EXPECT_EQ(op_of(g, "zeros"), "");
  EXPECT_EQ(input_of(g, norm5.y.node_name()).node, x.node_name());
  EXPECT_EQ(std::get<std::vector<int64_t>>(
              g.find(norm5.y.node_name())->attrs.at("pads")),
            (std::vector<int64_t>{1, 2, 0, 1}));
  EXPECT_EQ(op_of(g, ones.node_name()), "PadV2");
  const auto& attrs6 = g.find(norm6.y.node_name())->attrs;
  EXPECT_TRUE(attrs6.count("pads") == 0
              || std::get<std::vector<int64_t>>(attrs6.at("pads")).empty());
  const auto* fused = g.find(y.node_name());
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op, "_FusedConvBatchNorm");
  EXPECT_EQ(std::get<std::vector<std::string>>(fused->attrs.at("fused_ops")),
            (std::vector<std::string>{"BiasAdd", "FusedBatchNorm", "Relu6"}));
  EXPECT_EQ(std::get<int64_t>(fused->attrs.at("num_args")), 5);
  EXPECT_EQ(input_of(g, fused->name, 2).node, "b/Const");
  for (const auto& gone : {conv, biased, norm.y})
    EXPECT_EQ(op_of(g, gone.node_name()), "") << gone.node_name();
  const auto* fused2 = g.find(norm2.y.node_name());
  ASSERT_NE(fused2, nullptr);
  EXPECT_EQ(fused2->op, "_FusedConvBatchNorm");
  EXPECT_TRUE(std::get<bool>(fused2->attrs.at("depthwise")));
  EXPECT_EQ(std::get<std::vector<std::string>>(fused2->attrs.at("fused_ops")),
            (std::vector<std::string>{"FusedBatchNorm"}));
  EXPECT_EQ(op_of(g, training.y.node_name()), "FusedBatchNorm");
  EXPECT_EQ(op_of(g, read.y.node_name()), "FusedBatchNorm");
  EXPECT_EQ(op_of(g, mean.node_name()), "Identity");
}

TEST_F(optimization_passes, dead_nodes_go_with_what_only_they_read) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32);
  auto used = graph::square(s.sub("used"), x);
  auto dead
    = graph::square(s.sub("dead"), graph::add(s.sub("feeds_dead"), x, x));
  auto v = graph::variable(s.sub("v"), {}, dtype::float32);
  auto effect = graph::assign(s.sub("effect"), v, x); // stateful
  auto target = graph::no_op(s.sub("target"));
  std::vector<std::string> log;
  // In a run, a fetched value is read by its _Fetch node; here `used`
  // is kept by name like a target.
  auto g
    = run(s, graph::passes::dead_nodes, &log, {target.name, used.node_name()});
  EXPECT_EQ(g.find(dead.node_name()), nullptr);
  EXPECT_EQ(g.find("feeds_dead/Add"), nullptr);
  EXPECT_EQ(log.size(), 2u);
  EXPECT_NE(g.find(used.node_name()), nullptr);
  EXPECT_NE(g.find(effect.node_name()), nullptr);
  EXPECT_NE(g.find(target.name), nullptr);
}

TEST_F(optimization_passes, selections_parse_and_name_the_passes) {
  graph::pass_selection sel;
  ASSERT_TRUE(graph::pass_selection::parse("all", &sel).is_ok());
  EXPECT_EQ(sel.to_string(),
            "cse,constant_folding,dead_branches,fusion,arithmetic,identities,"
            "loop_invariants,dead_nodes");
  ASSERT_TRUE(graph::pass_selection::parse("none", &sel).is_ok());
  EXPECT_EQ(sel.to_string(), "none");
  ASSERT_TRUE(graph::pass_selection::parse("fusion,cse", &sel).is_ok());
  EXPECT_EQ(sel.to_string(), "cse,fusion");
  ASSERT_TRUE(graph::pass_selection::parse("-fusion", &sel).is_ok());
  EXPECT_EQ(sel.to_string(),
            "cse,constant_folding,dead_branches,arithmetic,identities,"
            "loop_invariants,dead_nodes");
  ASSERT_TRUE(graph::pass_selection::parse("all,-cse", &sel).is_ok());
  EXPECT_EQ(sel.to_string(),
            "constant_folding,dead_branches,fusion,arithmetic,identities,"
            "loop_invariants,dead_nodes");
  auto st = graph::pass_selection::parse("cse,remapper", &sel);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("'remapper'"), std::string::npos);
  EXPECT_NE(st.message().find("constant_folding"), std::string::npos);
}

// A graph keeps its edges until it changes: passes that change nothing
// hand the next one the same index (the whole pipeline over a graph none
// of them rewrites builds it once), copies share it, edits of devices and
// attrs keep it and a changed input forgets it.
TEST_F(optimization_passes, passes_that_change_nothing_keep_the_edges) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32);
  auto y = graph::relu(s.sub("y"), graph::mul(s.sub("m"), x, x));
  graph::graph g = s.graph_def();
  auto before = g.edges();
  graph::pass_context ctx{registry, kernels, {y.node_name()}, ""};
  std::vector<graph::pass_rewrite> log;
  ASSERT_TRUE(graph::pass_pipeline::standard().run(g, ctx, {}, &log).is_ok());
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(g.edges(), before);
  g.set_device(0, "/device:cpu:0");
  g.mutable_attrs(0)["note"] = true;
  EXPECT_EQ(g.edges(), before);
  graph::graph copy = g;
  EXPECT_EQ(copy.edges(), before);
  copy.mutable_find(y.node_name())->inputs.push_back("^" + x.node_name());
  auto after = copy.edges();
  EXPECT_NE(after, before);
  auto i = static_cast<size_t>(copy.index_of(y.node_name()));
  EXPECT_EQ(after->inputs(i).size(), 2u);
  EXPECT_EQ(before->inputs(i).size(), 1u);
  EXPECT_EQ(g.edges(), before);
}

TEST_F(optimization_passes,
       a_pipeline_runs_the_selected_passes_and_ones_added) {
  graph::scope s{registry};
  auto x = graph::placeholder(s.sub("x"), dtype::float32);
  auto c = graph::add(s.sub("c"), graph::constant(s.sub("a"), 1.0f),
                      graph::constant(s.sub("b"), 2.0f));
  auto y = graph::mul(s.sub("y"), x, c);
  auto pipeline = graph::pass_pipeline::standard();
  int custom_runs = 0;
  pipeline.add({"count", [&](graph::graph&, const graph::pass_context&,
                             std::vector<std::string>* log) {
                  ++custom_runs;
                  log->push_back("counted");
                  return core::status::ok();
                }});
  graph::graph g = s.graph_def();
  graph::pass_context ctx{registry, kernels, {y.node_name()}, ""};
  graph::pass_selection no_folding;
  ASSERT_TRUE(
    graph::pass_selection::parse("-constant_folding", &no_folding).is_ok());
  std::vector<graph::pass_rewrite> log;
  ASSERT_TRUE(pipeline.run(g, ctx, no_folding, &log).is_ok());
  EXPECT_EQ(op_of(g, c.node_name()), "Add");
  EXPECT_EQ(custom_runs, 1);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].pass, "count");
  // A failing pass names itself.
  pipeline.add({"broken", [](graph::graph&, const graph::pass_context&,
                             std::vector<std::string>*) {
                  return core::internal_error("nothing works");
                }});
  auto st = pipeline.run(g, ctx, {}, &log);
  EXPECT_EQ(st.code(), core::errc::internal);
  EXPECT_NE(st.message().find("graph pass broken"), std::string::npos);
  EXPECT_EQ(op_of(g, c.node_name()), "Const"); // folded before it failed
  EXPECT_EQ(op_of(g, y.node_name()), "Mul");
}
