// Shape inference of the op library while a graph is built: constant
// shapes, axes and sizes make results known, placeholders with unknown
// dimensions leave them open, and impossible combinations are
// invalid_argument naming the node.

#include <gtest/gtest.h>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"

using namespace actorflow;
using core::dtype;
using core::shape;

TEST(op_functions, constant_arguments_make_shapes_known) {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2, 3, 4});
  EXPECT_EQ(graph::reshape(s, x, {4, -1}).shape(), (shape{4, 6}));
  EXPECT_EQ(graph::transpose(s, x, {2, 0, 1}).shape(), (shape{4, 2, 3}));
  EXPECT_EQ(graph::reduce_sum(s, x, {1}, true).shape(), (shape{2, 1, 4}));
  EXPECT_EQ(graph::arg_max(s, x, -1).shape(), (shape{2, 3}));
  EXPECT_EQ(graph::concat(s, {x, x}, 1).shape(), (shape{2, 6, 4}));
  EXPECT_EQ(graph::stack(s, {x, x, x}, 1).shape(), (shape{2, 3, 3, 4}));
  auto parts = graph::split_v(s, x, {1, -1}, 2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].shape(), (shape{2, 3, 3}));
  EXPECT_EQ(graph::unstack(s, x, 3, 1)[2].shape(), (shape{2, 4}));
  EXPECT_EQ(graph::strided_slice(s, x, {0, 2}, {0, 0}, {1, -1}, {1, 1, 0, 0, 0})
              .shape(),
            (shape{2, 2, 4})); // x[:, 2:0:-1]
  EXPECT_EQ(graph::strided_slice(s, x, {1}, {2}, {1}, {0, 0, 0, 0, 1}).shape(),
            (shape{3, 4}));
  EXPECT_EQ(graph::tile(s, x, {1, 2, 3}).shape(), (shape{2, 6, 12}));
  EXPECT_EQ(graph::pad(s, x, {{1, 1}, {0, 0}, {2, 0}}).shape(),
            (shape{4, 3, 6}));
  EXPECT_EQ(graph::fill(s, {5, 2}, graph::constant(s, 0.5)).shape(),
            (shape{5, 2}));
  EXPECT_EQ(graph::shape_of(s, x).shape(), (shape{3}));
  auto img = graph::placeholder(s.sub("img"), dtype::float32, {8, 32, 32, 3});
  auto f = graph::placeholder(s.sub("f"), dtype::float32, {5, 5, 3, 16});
  EXPECT_EQ(graph::conv2d(s, img, f, {2, 2, "SAME"}).shape(),
            (shape{8, 16, 16, 16}));
  EXPECT_EQ(graph::conv2d(s, img, f, {1, 1, "VALID"}).shape(),
            (shape{8, 28, 28, 16}));
  EXPECT_EQ(graph::max_pool(s, img, 3, 3, {2, 2, "VALID"}).shape(),
            (shape{8, 15, 15, 3}));
  EXPECT_EQ(graph::random_uniform(s, {3, 7}).shape(), (shape{3, 7}));
  EXPECT_TRUE(s.ok()) << s.status().to_string();
}

TEST(op_functions, unknown_dimensions_stay_open) {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {-1, 3, 4});
  EXPECT_EQ(graph::reshape(s, x, {-1, 12}).shape(), (shape{-1, 12}));
  EXPECT_EQ(graph::transpose(s, x, {2, 0, 1}).shape(), (shape{4, -1, 3}));
  EXPECT_EQ(graph::concat(s, {x, x}, 0).shape(), (shape{-1, 3, 4}));
  EXPECT_EQ(graph::reduce_max(s, x, {0}).shape(), (shape{3, 4}));
  auto any = graph::placeholder(s.sub("any"), dtype::float32);
  EXPECT_FALSE(graph::softmax(s, any).shape().known_rank());
  EXPECT_EQ(
    graph::conv2d(s, any,
                  graph::placeholder(s.sub("f"), dtype::float32, {3, 3, -1, 8}))
      .shape(),
    (shape{-1, -1, -1, 8}));
  auto img = graph::placeholder(s.sub("img"), dtype::float32, {-1, 9, -1, 2});
  EXPECT_EQ(graph::max_pool(s, img, 2, 2, {2, 2, "SAME"}).shape(),
            (shape{-1, 5, -1, 2}));
  EXPECT_TRUE(s.ok()) << s.status().to_string();
}

/// Builds with `f` in a fresh scope; expects invalid_argument naming a node
/// of `op` whose message contains `what`.
template <class F>
void expect_build_error(F&& f, const std::string& op, const std::string& what) {
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2, 3, 4});
  f(s.sub("bad"), x);
  const auto& st = s.status();
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << op;
  EXPECT_EQ(st.op(), op);
  EXPECT_EQ(st.node().rfind("bad/", 0), 0u) << st.node();
  EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
}

TEST(op_functions, impossible_combinations_fail_at_build_time) {
  using graph::scope, graph::output;
  expect_build_error(
    [](const scope& s, const output& x) {
      graph::reshape(s, x, {5, -1});
    },
    "Reshape", "cannot reshape");
  expect_build_error(
    [](const scope& s, const output& x) {
      graph::transpose(s, x, {0, 0, 1});
    },
    "Transpose", "permutation");
  expect_build_error(
    [](const scope& s, const output& x) {
      graph::concat(s, {x, graph::reshape(s, x, {3, 2, 4})}, 0);
    },
    "ConcatV2", "differ in dimension");
  expect_build_error(
    [](const scope& s, const output& x) { graph::split(s, x, 2, 3); }, "Split",
    "equal parts");
  expect_build_error(
    [](const scope& s, const output& x) { graph::reduce_sum(s, x, {3}); },
    "Sum", "out of range");
  expect_build_error(
    [](const scope& s, const output& x) {
      // 4 input channels: no whole number of groups of 3.
      auto f = graph::placeholder(s.sub("f"), dtype::float32, {3, 3, 3, 8});
      graph::conv2d(s, graph::reshape(s, x, {1, 2, 3, 4}), f);
    },
    "Conv2D", "channels");
  expect_build_error(
    [](const scope& s, const output& x) {
      graph::strided_slice(s, x, {0}, {1}, {0});
    },
    "StridedSlice", "stride");
  expect_build_error(
    [](const scope& s, const output& x) { graph::top_k(s, x, 5); }, "TopKV2",
    "larger than");
  expect_build_error(
    [](const scope& s, const output& x) { graph::matrix_inverse(s, x); },
    "MatrixInverse", "square");
  expect_build_error(
    [](const scope& s, const output& x) { graph::squeeze(s, x, {1}); },
    "Squeeze", "cannot squeeze");
}
