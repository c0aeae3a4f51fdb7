// Gradients through TensorLists in graph::gradients (issue 55): each list
// op's gradient function, outside and inside a while loop, against central
// differences.

#include <cmath>
#include <cstdlib>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "common/session_gradients.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using graph::output;
using outputs = std::vector<graph::output>;

namespace {

/// The list ops of these tests hold float64 items of shape [2].
class list_builder {
public:
  explicit list_builder(const graph::scope& s) : s_(s) {
    shape_ = graph::constant(s, tensor::from_vector<int32_t>({1}, {2}));
  }

  output from_tensor(const output& t) const {
    return op("TensorListFromTensor", {t, shape_}, true);
  }

  output reserve(int32_t n) const {
    return op("TensorListReserve", {shape_, i32({}, {n})}, true);
  }

  output get(const output& l, int32_t i) const {
    return op("TensorListGetItem", {l, i32({}, {i}), shape_});
  }

  output set(const output& l, const output& i, const output& x) const {
    return op("TensorListSetItem", {l, i, x});
  }

  output stack(const output& l) const {
    return op("TensorListStack", {l, shape_});
  }

  output gather(const output& l, std::vector<int32_t> at) const {
    return op("TensorListGather", {l, indices(std::move(at)), shape_});
  }

  output indices(std::vector<int32_t> at) const {
    auto n = static_cast<int64_t>(at.size());
    return i32({n}, std::move(at));
  }

  output i32(std::vector<int64_t> dims, std::vector<int32_t> values) const {
    return graph::constant(
      s_, tensor::from_vector<int32_t>(core::shape{dims}, values));
  }

  output op(const char* name, const outputs& in, bool shaped = false) const {
    auto out = ops(name, in, shaped);
    return out.empty() ? output{} : out.front();
  }

  std::vector<output> ops(const char* name, const outputs& in,
                          bool shaped = false) const {
    core::attr_map attrs{{"element_dtype", dtype::float64}};
    if (shaped)
      attrs.emplace("shape_type", dtype::int32);
    return s_.add_node(name, name, in, std::move(attrs));
  }

  const output& shape() const {
    return shape_;
  }

private:
  graph::scope s_;
  output shape_;
};

class list_gradients : public ::testing::Test {
protected:
  /// Expects d loss / d x and d loss / d w at `xt`, `wt` to match central
  /// differences.
  void expect_match(const graph::scope& s, const output& loss, const output& x,
                    const output& w, const tensor& xt, const tensor& wt) {
    auto g = graph::gradients(s, {loss}, {x, w});
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    ASSERT_TRUE(g.at(0) && g.at(1));
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    test::expect_gradients_match(sess, loss, x, w, g, xt, wt, "");
  }

  /// sum(x * weights) for a constant `weights` of x's shape, made from
  /// `seed`: every element of x counts differently.
  static output weighted(const graph::scope& s, const output& x,
                         std::vector<int64_t> dims, double seed) {
    int64_t n = 1;
    for (auto d : dims)
      n *= d;
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i)
      v.push_back(std::sin(seed + 1.3 * static_cast<double>(i)));
    auto c
      = graph::constant(s, tensor::from_vector<double>(core::shape{dims}, v));
    std::vector<int64_t> axes(dims.size());
    for (size_t i = 0; i < axes.size(); ++i)
      axes[i] = static_cast<int64_t>(i);
    return graph::reduce_sum(s, graph::mul(s, x, c), axes);
  }

  actors::engine e;
  tensor xt = tensor::from_vector<double>(
    {4, 2}, {0.1, -0.4, 0.7, 0.2, -0.9, 0.3, 0.5, -0.6});
  tensor wt = tensor::from_vector<double>({2}, {0.8, -1.1});
};

} // namespace

TEST_F(list_gradients, every_list_op_outside_a_loop) {
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {4, 2});
  auto w = graph::placeholder(s.sub("w"), dtype::float64, {2});
  list_builder l{s};
  auto rows = l.from_tensor(x);
  // Item 2 replaced by tanh(item 1 * w); w pushed and popped again.
  auto item = graph::tanh(s, graph::mul(s, l.get(rows, 1), w));
  auto changed = l.set(rows, l.i32({}, {2}), item);
  auto popped = l.ops("TensorListPopBack",
                      {l.op("TensorListPushBack", {changed, w}), l.shape()});
  ASSERT_EQ(popped.size(), 2u);
  auto gathered = l.gather(changed, {3, 0, 2});
  // Scattered into a list of 4 (item 1 never set), and into rows.
  auto scattered
    = l.op("TensorListScatterV2",
           {gathered, l.indices({0, 2, 3}), l.shape(), l.i32({}, {4})}, true);
  auto into
    = l.op("TensorListScatterIntoExistingList",
           {rows, graph::mul(s, gathered, gathered), l.indices({1, 3, 0})});
  // Split into items of 1 and 3 rows, concatenated again.
  auto any = l.i32({2}, {-1, 2});
  auto parts = l.op(
    "TensorListSplit",
    {x, any, graph::constant(s, tensor::from_vector<int64_t>({2}, {1, 3}))},
    true);
  auto joined
    = l.ops("TensorListConcatV2",
            {parts, any, graph::constant(s, tensor{dtype::int64, {0}})}, true);
  // Cut to 3 items, then grown to 5 (two unset).
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto cut
    = s.add_node("TensorListResize", "resize", {rows, l.i32({}, {3})}, {});
  ASSERT_EQ(cut.size(), 1u) << s.status().to_string();
  auto resized
    = s.add_node("TensorListResize", "resize", {cut[0], l.i32({}, {5})}, {});
  ASSERT_EQ(resized.size(), 1u) << s.status().to_string();
  ASSERT_EQ(joined.size(), 2u);
  auto loss = weighted(s, l.stack(popped[0]), {4, 2}, 0.1)
              + weighted(s, graph::mul(s, popped[1], popped[1]), {2}, 0.2)
              + weighted(s, l.stack(scattered), {4, 2}, 0.3)
              + weighted(s, l.stack(into), {4, 2}, 0.4)
              + weighted(s, graph::mul(s, joined[0], joined[0]), {4, 2}, 0.5)
              + weighted(s, l.stack(resized.front()), {5, 2}, 0.6);
  expect_match(s, loss, x, w, xt, wt);
}

TEST_F(list_gradients, a_loop_reading_and_writing_lists) {
  // h_t = tanh(w * h_{t-1} + x_t) with x_t read from a list made outside
  // (a loop constant: its gradient sums lists) and h_t written into a list
  // the loop carries; the loss reads every h_t and the last.
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {4, 2});
  auto w = graph::placeholder(s.sub("w"), dtype::float64, {2});
  list_builder l{s};
  auto inputs = l.from_tensor(x);
  auto vars = graph::while_loop(
    s,
    [&](const graph::scope& c, const outputs& v) {
      return graph::less(c, v[0], graph::constant(c, int32_t{4}));
    },
    [&](const graph::scope& b, const outputs& v) {
      list_builder in{b};
      auto x_t = in.op("TensorListGetItem", {inputs, v[0], in.shape()});
      auto h = graph::tanh(b, graph::mul(b, w, v[1]) + x_t);
      return outputs{v[0] + graph::constant(b, int32_t{1}), h,
                     in.set(v[2], v[0], h)};
    },
    {graph::constant(s, int32_t{0}),
     graph::constant(s, tensor::from_vector<double>({2}, {0.3, -0.2})),
     l.reserve(4)});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto mode = std::getenv("MODE") ? std::string{std::getenv("MODE")} : "";
  auto loss = mode == "h"   ? weighted(s, vars[1], {2}, 0.8)
              : mode == "l" ? weighted(s, l.stack(vars[2]), {4, 2}, 0.7)
                            : weighted(s, l.stack(vars[2]), {4, 2}, 0.7)
                                + weighted(s, vars[1], {2}, 0.8);
  expect_match(s, loss, x, w, xt, wt);
}
