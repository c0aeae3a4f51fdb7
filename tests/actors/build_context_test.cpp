// Where nodes are built: every node goes into the region of control flow
// being built, whichever scope or operand it came from, and the operators
// build in the graph's current scope (scope::current, scope_guard), as a
// TensorFlow user expects (issue 11, part 1). Each loop and cond case here
// failed to extend when operators built in their left operand's scope.

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/scope_guard.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using graph::output;
using outputs = std::vector<graph::output>;

namespace {

class build_context : public ::testing::Test {
protected:
  /// Extends a fresh session with `s`'s graph and runs `fetches`.
  std::vector<tensor> run(const graph::scope& s, actors::feed_list feeds,
                          const outputs& fetches) {
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    auto st = sess.extend(s.graph_def());
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    std::vector<std::string> names;
    for (const auto& f : fetches)
      names.push_back(f.name());
    std::vector<tensor> out;
    if (st.is_ok())
      st = sess.run(std::move(feeds), names, {}, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return out;
  }

  actors::engine e;
};

template <class T>
T scalar(const std::vector<tensor>& out, size_t i) {
  return out.size() > i && out[i].valid() ? out[i].scalar_value<T>() : T{-1};
}

} // namespace

TEST_F(build_context, a_body_written_with_operators_in_the_readme_style) {
  // i = 0, sum = 0; while i < 10: sum += i; i += 1.
  graph::scope s{e.context().ops()};
  auto ops = s.sub("ops");
  auto r = graph::while_loop(
    ops, [&](graph::scope, outputs v) { return v[0] < graph::constant(s, 10); },
    [&](graph::scope bs, outputs v) {
      return outputs{v[0] + graph::constant(bs, 1), v[1] + v[0]};
    },
    {graph::constant(s, 0), graph::constant(s, 0)});
  ASSERT_EQ(r.size(), 2u);
  // The body's Add is built in the body (the body scope's name) and in the
  // loop's frame: it feeds the NextIteration directly, no Enter between.
  const auto* next = s.graph_def().find("ops/while/NextIteration");
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->inputs.at(0), "ops/while/body/Add");
  auto out = run(s, {}, r);
  EXPECT_EQ(scalar<int32_t>(out, 0), 10);
  EXPECT_EQ(scalar<int32_t>(out, 1), 45);
}

TEST_F(build_context, an_outer_tensor_as_the_left_operand_in_a_body) {
  // v = v0; three times v = x * v, then d sum(v) / dx = 3 x^2 v0.
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {3});
  auto v0 = graph::placeholder(s.sub("v0"), dtype::float64, {3});
  auto r = graph::while_loop(
    s,
    [&](graph::scope, outputs v) {
      return v[0] < graph::constant(s, int64_t{3});
    },
    [&](graph::scope, outputs v) {
      return outputs{v[0] + graph::constant(s, int64_t{1}), x * v[1]};
    },
    {graph::constant(s, int64_t{0}), v0});
  ASSERT_EQ(r.size(), 2u);
  auto dx = graph::gradients(s, {graph::reduce_sum(s, r[1], {0})}, {x});
  ASSERT_TRUE(dx[0].has_value()) << s.status().to_string();
  auto xs = tensor::from_vector<double>({3}, {1.5, -2.0, 0.5});
  auto vs = tensor::from_vector<double>({3}, {2.0, 3.0, -1.0});
  auto out = run(s, {{x.name(), xs}, {v0.name(), vs}}, {r[1], *dx[0]});
  ASSERT_EQ(out.size(), 2u);
  for (int64_t i = 0; i < 3; ++i) {
    auto xi = xs.data<double>()[i];
    auto vi = vs.data<double>()[i];
    EXPECT_DOUBLE_EQ(out[0].data<double>()[i], xi * xi * xi * vi) << i;
    EXPECT_DOUBLE_EQ(out[1].data<double>()[i], 3 * xi * xi * vi) << i;
  }
}

TEST_F(build_context, an_op_function_given_the_outer_scope_builds_in_the_body) {
  // A lambda that captures the outer scope `s` by reference and uses it:
  // the Mul still goes into the loop, as tf.multiply would.
  graph::scope s{e.context().ops()};
  auto r = graph::while_loop(
    s, [&](graph::scope, outputs v) { return v[0] < graph::constant(s, 5); },
    [&](graph::scope, outputs v) {
      return outputs{graph::add(s, v[0], graph::constant(s, 1)),
                     graph::mul(s, v[1], graph::constant(s, 2))};
    },
    {graph::constant(s, 0), graph::constant(s, 1)});
  auto out = run(s, {}, r);
  EXPECT_EQ(scalar<int32_t>(out, 0), 5);
  EXPECT_EQ(scalar<int32_t>(out, 1), 32);
}

TEST_F(build_context, operators_on_two_outer_tensors_in_a_cond_in_a_loop) {
  // for i in 0..5: acc += (i even) ? a + b : a - b, a and b from outside
  // both the loop and the cond.
  graph::scope s{e.context().ops()};
  auto a = graph::placeholder(s.sub("a"), dtype::float32, {});
  auto b = graph::placeholder(s.sub("b"), dtype::float32, {});
  auto r = graph::while_loop(
    s, [&](graph::scope, outputs v) { return v[0] < graph::constant(s, 5); },
    [&](graph::scope, outputs v) {
      auto even = graph::floor_mod(s, v[0], graph::constant(s, 2))
                  == graph::constant(s, 0);
      auto picked = graph::cond(
        s, even, [&](graph::scope) { return outputs{a + b}; },
        [&](graph::scope) { return outputs{a - b}; });
      return outputs{v[0] + graph::constant(s, 1), v[1] + picked.at(0)};
    },
    {graph::constant(s, 0), graph::constant(s, 0.0)});
  ASSERT_EQ(r.size(), 2u);
  auto out = run(
    s, {{a.name(), tensor::scalar(3.0f)}, {b.name(), tensor::scalar(0.5f)}},
    {r[1]});
  // Three even iterations (3.5) and two odd ones (2.5).
  EXPECT_FLOAT_EQ(scalar<float>(out, 0), 3 * 3.5f + 2 * 2.5f);
}

TEST_F(build_context, comparison_and_logical_operators_in_a_condition) {
  // while i < 7 && !(i == 4) || false: i += 1  -> stops at 4.
  graph::scope s{e.context().ops()};
  auto never = graph::constant(s, false);
  auto r = graph::while_loop(
    s,
    [&](graph::scope, outputs v) {
      auto i = v[0];
      return (i < graph::constant(s, 7) && i != graph::constant(s, 4)) || never;
    },
    [&](graph::scope, outputs v) {
      return outputs{v[0] + graph::constant(s, 1)};
    },
    {graph::constant(s, 0)});
  auto out = run(s, {}, r);
  EXPECT_EQ(scalar<int32_t>(out, 0), 4);
}

TEST_F(build_context, arithmetic_operators_compute_what_tensorflow_does) {
  graph::scope s{e.context().ops()};
  auto x = graph::constant(s, 7.0);
  auto y = graph::constant(s, 2.0);
  auto i = graph::constant(s, -7);
  auto j = graph::constant(s, 2);
  auto out
    = run(s, {}, {x / y, -x, i / j, x <= y, x >= y, x > y, x == x, x != x});
  ASSERT_EQ(out.size(), 8u);
  EXPECT_FLOAT_EQ(out[0].scalar_value<float>(), 3.5f);
  EXPECT_FLOAT_EQ(out[1].scalar_value<float>(), -7.0f);
  EXPECT_EQ(out[2].scalar_value<int32_t>(), -3); // truncates, as C++ does
  EXPECT_FALSE(out[3].scalar_value<bool>());
  EXPECT_TRUE(out[4].scalar_value<bool>());
  EXPECT_TRUE(out[5].scalar_value<bool>());
  EXPECT_TRUE(out[6].scalar_value<bool>());
  EXPECT_FALSE(out[7].scalar_value<bool>());
}

TEST_F(build_context, fill_zeros_and_ones_compute_their_values) {
  graph::scope s{e.context().ops()};
  auto dims = graph::placeholder(s.sub("dims"), dtype::int32, {2});
  auto out = run(s, {{dims.name(), tensor::from_vector<int32_t>({2}, {2, 3})}},
                 {graph::fill(s, dims, graph::constant(s, 1.5)),
                  graph::zeros(s, {2}), graph::ones(s, {3}, dtype::int64)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape(), (core::shape{2, 3}));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(out[0].data<float>()[i], 1.5f);
  EXPECT_EQ(out[1].data<float>()[1], 0.0f);
  EXPECT_EQ(out[2].data<int64_t>()[2], 1);
}
