#include "actorflow/graph/builder_ops.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/scope_guard.hpp"
#include "actorflow/ops/op_registry.hpp"

#include <gtest/gtest.h>

using namespace actorflow;
using core::dtype;

TEST(builder, figure_one_reads_short_and_infers_shapes) {
  graph::scope s;
  auto W = graph::variable(s.sub("W"), {100, 784}, dtype::float32);
  auto b = graph::variable(s.sub("b"), {100, 1}, dtype::float32);
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {784, -1});
  auto y = graph::relu(s, graph::matmul(s, W, x) + b);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(W.node_name(), "W");
  EXPECT_TRUE(W.is_ref());
  EXPECT_EQ(x.node_name(), "x");
  EXPECT_EQ(y.node_name(), "Relu");
  EXPECT_EQ(y.shape(), (core::shape{100, -1}));
  EXPECT_EQ(y.dtype(), dtype::float32);
  EXPECT_EQ(s.graph_def().size(), 6u);
}

TEST(builder, name_scopes_devices_and_control_dependencies) {
  graph::scope s;
  auto layer = s.sub("layer1");
  auto a = graph::constant(layer, 1.0);
  auto b = graph::constant(layer, 2.0);
  EXPECT_EQ(a.node_name(), "layer1/Const");
  EXPECT_EQ(b.node_name(), "layer1/Const_1");
  auto init = graph::no_op(s.sub("init"));
  auto gated = s.with_device("cpu:1").with_control_dependencies({init});
  auto c = graph::add(gated, a, b);
  ASSERT_TRUE(s.ok());
  const auto* node = s.graph_def().find(c.node_name());
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->device, "cpu:1");
  EXPECT_EQ(node->inputs, (std::vector<std::string>{
                            "layer1/Const", "layer1/Const_1", "^init/NoOp"}));
  EXPECT_EQ(init.name, "init/NoOp");
}

TEST(builder, dtype_errors_are_reported_at_build_time_with_the_node) {
  graph::scope s;
  auto f = graph::constant(s, 1.0, dtype::float32);
  auto d = graph::constant(s, 1.0, dtype::float64);
  auto bad = graph::add(s.sub("mix"), f, d);
  EXPECT_FALSE(bad.valid());
  EXPECT_EQ(s.status().code(), core::errc::invalid_argument);
  EXPECT_EQ(s.status().node(), "mix/Add");
  EXPECT_EQ(s.status().op(), "Add");
  EXPECT_NE(s.status().message().find("dtype mismatch"), std::string::npos);
  // Later ops are no-ops; the first error stays.
  auto later = graph::relu(s, f);
  EXPECT_FALSE(later.valid());
  EXPECT_EQ(s.status().node(), "mix/Add");
}

TEST(builder, take_error_lets_building_go_on) {
  graph::scope s;
  auto f = graph::constant(s, 1.0, dtype::float32);
  auto d = graph::constant(s, 1.0, dtype::float64);
  auto nodes = s.graph_def().size();
  EXPECT_FALSE(graph::add(s.sub("mix"), f, d).valid());
  auto st = s.take_error();
  EXPECT_EQ(st.node(), "mix/Add");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.graph_def().size(), nodes); // the failed op left nothing
  EXPECT_TRUE(graph::relu(s, f).valid());
  EXPECT_NE(s.ops().find("Relu"), nullptr);
}

TEST(builder, shape_errors_are_reported_at_build_time_when_known) {
  graph::scope s;
  auto a = graph::placeholder(s.sub("a"), dtype::float32, {3, 4});
  auto b = graph::placeholder(s.sub("b"), dtype::float32, {5, 6});
  graph::matmul(s.sub("mm"), a, b);
  EXPECT_EQ(s.status().node(), "mm/MatMul");
  EXPECT_NE(s.status().message().find("inner dimensions differ"),
            std::string::npos);
  graph::scope t;
  auto p = graph::placeholder(t.sub("p"), dtype::float32, {2, 3});
  auto q = graph::placeholder(t.sub("q"), dtype::float32, {4});
  auto sum = p + q;
  EXPECT_FALSE(sum.valid());
  EXPECT_NE(t.status().message().find("incompatible shapes"),
            std::string::npos);
  // Unknown dimensions are not errors.
  graph::scope u;
  auto m = graph::placeholder(u.sub("m"), dtype::float32, {-1, 4});
  auto n = graph::placeholder(u.sub("n"), dtype::float32);
  EXPECT_EQ(graph::matmul(u, m, n).shape(), (core::shape{-1, -1}));
  EXPECT_TRUE(u.ok());
}

TEST(builder, assign_needs_a_variable) {
  graph::scope s;
  auto c = graph::constant(s, 1.0);
  graph::assign(s.sub("a"), c, c);
  EXPECT_EQ(s.status().node(), "a/Assign");
  EXPECT_NE(s.status().message().find("needs a reference"), std::string::npos);
}

namespace {

/// The device node `x` requests.
std::string device_of(const graph::scope& s, const graph::output& x) {
  const auto* node = s.graph_def().find(x.node_name());
  return node == nullptr ? "<none>" : node->device;
}

} // namespace

TEST(builder, operators_follow_the_device_scope_not_their_left_operand) {
  graph::scope s;
  auto W = graph::placeholder(s.sub("W"), dtype::float32, {4, 3});
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {3, 1});
  auto b = graph::placeholder(s.sub("b"), dtype::float32, {4, 1});
  auto mm = graph::matmul(s.with_device("cpu:0"), W, x);
  auto y = mm + b;
  EXPECT_EQ(device_of(s, mm), "cpu:0");
  EXPECT_EQ(device_of(s, y), ""); // as `mm + b` after `with tf.device` ends
  EXPECT_EQ(y.node_name(), "Add");
  {
    graph::scope_guard outer{s.sub("layer").with_device("cpu:0")};
    auto z = mm * b;
    EXPECT_EQ(device_of(s, z), "cpu:0");
    EXPECT_EQ(z.node_name(), "layer/Mul");
    {
      graph::scope_guard inner{s.with_device("cpu:1")};
      EXPECT_EQ(device_of(s, mm - b), "cpu:1");
      EXPECT_EQ(device_of(s, -b), "cpu:1");
    }
    EXPECT_EQ(device_of(s, mm / b), "cpu:0");
    // An op function builds in the scope it is given.
    EXPECT_EQ(device_of(s, graph::add(s, mm, b)), "");
  }
  EXPECT_EQ(device_of(s, mm + b), "");
  EXPECT_TRUE(s.ok()) << s.status().to_string();
}

TEST(builder, operators_in_a_body_build_in_the_body_scope_and_its_device) {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {});
  std::string in_body, in_guard, in_cond;
  graph::while_loop(
    s.sub("loop").with_device("cpu:1"),
    [&](graph::scope, std::vector<graph::output> v) {
      auto p = v[0] < graph::constant(s, 3.0);
      in_cond = device_of(s, p);
      return p;
    },
    [&](graph::scope, std::vector<graph::output> v) {
      auto next = v[0] + x;
      in_body = device_of(s, next);
      EXPECT_EQ(next.node_name(), "loop/while/body/Add");
      graph::scope_guard on_cpu0{s.with_device("cpu:0")};
      auto twice = next * graph::constant(s, 2.0);
      in_guard = device_of(s, twice);
      return std::vector<graph::output>{twice};
    },
    {graph::constant(s, 0.0)});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(in_cond, "cpu:1");
  EXPECT_EQ(in_body, "cpu:1");
  EXPECT_EQ(in_guard, "cpu:0");
  // Outside the loop again: the root scope.
  EXPECT_EQ(device_of(s, x + x), "");
}

TEST(builder, an_operator_on_an_invalid_operand_records_an_error) {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2});
  auto sum = x + graph::output{};
  EXPECT_FALSE(sum.valid());
  EXPECT_EQ(s.status().code(), core::errc::invalid_argument);
  EXPECT_NE(s.status().message().find("invalid"), std::string::npos);
}

TEST(builder, constants_are_typed_as_tensorflow_types_python_values) {
  graph::scope s;
  EXPECT_EQ(graph::constant(s, 1).dtype(), dtype::int32);
  EXPECT_EQ(graph::constant(s, int64_t{1}).dtype(), dtype::int64);
  EXPECT_EQ(graph::constant(s, true).dtype(), dtype::bool_);
  EXPECT_EQ(graph::constant(s, 0.5).dtype(), dtype::float32);
  EXPECT_EQ(graph::constant(s, 0.5f).dtype(), dtype::float32);
  EXPECT_EQ(graph::constant(s, 0.5, dtype::float64).dtype(), dtype::float64);
  auto z = graph::zeros(s, {2, 3});
  auto o = graph::ones(s, {4}, dtype::int64);
  EXPECT_EQ(z.dtype(), dtype::float32);
  EXPECT_EQ(z.shape(), (core::shape{2, 3}));
  EXPECT_EQ(o.dtype(), dtype::int64);
  EXPECT_EQ(o.shape(), (core::shape{4}));
  auto dims = graph::placeholder(s.sub("dims"), dtype::int32, {2});
  auto f = graph::fill(s, dims, graph::constant(s, 7));
  EXPECT_EQ(f.dtype(), dtype::int32);
  EXPECT_EQ(f.shape().rank(), 2);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
}
