// TensorArrays (issue 37): the ops' semantics and errors, arrays filled
// and read inside while loops, the functional builders (map_fn, scan,
// foldl, foldr) and gradients through all of them, against central
// differences. TensorFlow's own results for the same graphs are checked in
// graph_def_test (tests/golden/graphdef.txt).

#include <cmath>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/functional_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/tensor_array.hpp"
#include "common/central_differences.hpp"
#include "common/session_gradients.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using graph::output;
using graph::tensor_array;
using outputs = std::vector<graph::output>;
using test::expect_gradients_match;
using test::worst_gradient_error;

namespace {

class tensor_arrays : public ::testing::Test {
protected:
  /// Runs the graph of `s` once: fetches `fetches` with `feeds`.
  core::status run(const graph::scope& s, const actors::feed_list& feeds,
                   const std::vector<output>& fetches,
                   std::vector<tensor>* out) {
    if (!s.ok())
      return s.status();
    actors::session sess{e};
    ACTORFLOW_RETURN_IF_ERROR(sess.extend(s.graph_def()));
    std::vector<std::string> names;
    for (const auto& f : fetches)
      names.push_back(f.name());
    return sess.run(feeds, names, {}, out);
  }

  std::vector<tensor> run_ok(const graph::scope& s,
                             const actors::feed_list& feeds,
                             const std::vector<output>& fetches) {
    std::vector<tensor> out;
    auto st = run(s, feeds, fetches, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return out;
  }

  actors::engine e;
};

output i32(const graph::scope& s, int32_t v) {
  return graph::constant(s, v);
}

} // namespace

TEST_F(tensor_arrays, write_read_stack_unstack_concat_split_size) {
  graph::scope s{e.context().ops()};
  auto ta = tensor_array::make(s, 3, {dtype::float32});
  auto x = graph::constant(
    s, tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
  auto filled = ta.unstack(s, x);
  auto stacked = filled.stack(s);
  auto size = filled.size(s);
  // Read-many array: split into rows of 1 and 2, concat back, read.
  tensor_array::options o{dtype::float32};
  o.clear_after_read = false;
  o.infer_shape = false;
  auto tb = tensor_array::make(s, 2, o);
  auto lengths = graph::constant(s, tensor::from_vector<int64_t>({2}, {1, 2}));
  auto parts = tb.split(s, x, lengths);
  auto joined = parts.concat(s);
  auto second = parts.read(s, i32(s, 1));
  auto out = run_ok(s, {}, {stacked, size, joined, second});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(out[1].scalar_value<int32_t>(), 3);
  EXPECT_EQ(out[2], tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(out[3], tensor::from_vector<float>({2, 2}, {3, 4, 5, 6}));
  EXPECT_EQ(stacked.shape(), (core::shape{3, 2}));
}

TEST_F(tensor_arrays, misuse_is_an_error_naming_the_node) {
  struct misuse {
    const char* what;
    std::function<output(const graph::scope&)> build;
    const char* message;
  };
  std::vector<misuse> cases{
    {"read of an unwritten index (of an unknown element shape)",
     [](const graph::scope& s) {
       return tensor_array::make(s, 2, {dtype::float32}).read(s, i32(s, 1));
     },
     "never written"},
    {"write of an index already read",
     [](const graph::scope& s) {
       tensor_array::options o{dtype::float32};
       o.clear_after_read = false;
       auto ta = tensor_array::make(s, 1, o).write(s, i32(s, 0),
                                                   graph::constant(s, 1.0f));
       auto r = ta.read(s, i32(s, 0));
       return ta.with_flow(r).write(s, i32(s, 0), r).flow();
     },
     "already read"},
    {"second read of a cleared index",
     [](const graph::scope& s) {
       auto ta = tensor_array::make(s, 1, {dtype::float32})
                   .write(s, i32(s, 0), graph::constant(s, 1.0f));
       auto first = ta.read(s.sub("first"), i32(s, 0));
       return graph::add(s, first, ta.with_flow(first).read(s, i32(s, 0)));
     },
     "twice"},
    {"second write",
     [](const graph::scope& s) {
       auto ta = tensor_array::make(s, 1, {dtype::float32})
                   .write(s, i32(s, 0), graph::constant(s, 1.0f))
                   .write(s, i32(s, 0), graph::constant(s, 2.0f));
       return ta.flow();
     },
     "already written"},
    {"index out of range",
     [](const graph::scope& s) {
       return tensor_array::make(s, 1, {dtype::float32})
         .write(s, i32(s, 3), graph::constant(s, 1.0f))
         .flow();
     },
     "size is 1"},
    {"wrong element shape",
     [](const graph::scope& s) {
       tensor_array::options o{dtype::float32};
       o.element_shape = core::shape{2};
       // Of unknown shape while building: the kernel finds out.
       auto v = graph::placeholder(s.sub("v"), dtype::float32);
       return tensor_array::make(s, 1, o).write(s, i32(s, 0), v).flow();
     },
     "incompatible with the element shape"},
  };
  {
    // Where the builder knows the shapes, it refuses them itself.
    graph::scope s{e.context().ops()};
    tensor_array::options o{dtype::float32};
    o.element_shape = core::shape{2};
    tensor_array::make(s, 1, o).write(s, i32(s, 0), graph::constant(s, 1.0f));
    EXPECT_NE(s.status().message().find("does not fit the element shape [2]"),
              std::string::npos)
      << s.status().to_string();
  }
  for (const auto& c : cases) {
    graph::scope s{e.context().ops()};
    auto y = c.build(s);
    actors::feed_list feeds;
    if (s.graph_def().find("v") != nullptr)
      feeds.emplace_back("v", tensor::scalar(1.0f));
    std::vector<tensor> out;
    auto st = run(s, feeds, {y}, &out);
    ASSERT_FALSE(st.is_ok()) << c.what;
    EXPECT_NE(st.message().find(c.message), std::string::npos)
      << c.what << ": " << st.to_string();
    EXPECT_NE(st.node().find("TensorArray"), std::string::npos)
      << c.what << ": " << st.to_string();
  }
}

TEST_F(tensor_arrays, a_while_loop_fills_a_dynamic_size_array) {
  graph::scope s{e.context().ops()};
  auto n = graph::placeholder(s.sub("n"), dtype::int32, {});
  tensor_array::options o{dtype::float32};
  o.dynamic_size = true;
  auto ta = tensor_array::make(s, 0, o);
  auto r = graph::while_loop(
    s, [&](graph::scope c, outputs v) { return graph::less(c, v[0], n); },
    [&](graph::scope b, outputs v) {
      auto x = graph::cast(b, v[0], dtype::float32);
      auto t = ta.with_flow(v[1]).write(b, v[0], graph::mul(b, x, x));
      return outputs{graph::add(b, v[0], i32(b, 1)), t.flow()};
    },
    {i32(s, 0), ta.flow()});
  ASSERT_EQ(r.size(), 2u);
  auto all = ta.with_flow(r[1]).stack(s);
  for (int32_t count : {1, 7, 40}) {
    auto out = run_ok(s, {{n.name(), tensor::scalar(count)}}, {all});
    ASSERT_EQ(out.size(), 1u);
    std::vector<float> want;
    for (int32_t i = 0; i < count; ++i)
      want.push_back(static_cast<float>(i * i));
    EXPECT_EQ(out[0], tensor::from_vector<float>({count}, want));
  }
}

TEST_F(tensor_arrays, map_fn_scan_and_folds) {
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {-1, 2});
  auto squares = graph::map_fn(s,
                               [](const graph::scope& b, outputs r) {
                                 return outputs{graph::mul(b, r[0], r[0])};
                               },
                               {x});
  auto sums = graph::scan(s,
                          [](const graph::scope& b, outputs acc, outputs r) {
                            return outputs{graph::add(b, acc[0], r[0])};
                          },
                          {x}, {graph::zeros(s, {2}, dtype::float32)});
  auto running = graph::scan(s,
                             [](const graph::scope& b, outputs acc, outputs r) {
                               return outputs{graph::add(b, acc[0], r[0])};
                             },
                             {x}, {});
  graph::functional_options back;
  back.reverse = true;
  auto reversed = graph::scan(
    s,
    [](const graph::scope& b, outputs acc, outputs r) {
      return outputs{graph::sub(b, r[0], acc[0])};
    },
    {x}, {graph::zeros(s, {2}, dtype::float32)}, back);
  auto left = graph::foldl(s,
                           [](const graph::scope& b, outputs acc, outputs r) {
                             return outputs{graph::sub(b, r[0], acc[0])};
                           },
                           {x}, {graph::zeros(s, {2}, dtype::float32)});
  auto right = graph::foldr(s,
                            [](const graph::scope& b, outputs acc, outputs r) {
                              return outputs{graph::sub(b, r[0], acc[0])};
                            },
                            {x}, {graph::zeros(s, {2}, dtype::float32)});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto in = tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out
    = run_ok(s, {{x.name(), in}},
             {squares[0], sums[0], running[0], reversed[0], left[0], right[0]});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], tensor::from_vector<float>({3, 2}, {1, 4, 9, 16, 25, 36}));
  EXPECT_EQ(out[1], tensor::from_vector<float>({3, 2}, {1, 2, 4, 6, 9, 12}));
  EXPECT_EQ(out[2], tensor::from_vector<float>({3, 2}, {1, 2, 4, 6, 9, 12}));
  // From the end: a2 = 5 - 0, a1 = 3 - 5, a0 = 1 - (-2).
  EXPECT_EQ(out[3], tensor::from_vector<float>({3, 2}, {3, 4, -2, -2, 5, 6}));
  // foldl: 1, 3 - 1 = 2, 5 - 2 = 3; foldr: 5, 3 - 5 = -2, 1 + 2 = 3.
  EXPECT_EQ(out[4], tensor::from_vector<float>({2}, {3, 4}));
  EXPECT_EQ(out[5], tensor::from_vector<float>({2}, {3, 4}));
  EXPECT_EQ(squares[0].shape(), (core::shape{-1, 2}));
}

TEST_F(tensor_arrays, gradients_through_map_fn_and_scan_match_differences) {
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {-1, 3});
  auto w = graph::placeholder(s.sub("w"), dtype::float64, {3});
  // A recurrence h_t = tanh(w * h_{t-1} + x_t) by scan, then a map.
  auto hs = graph::scan(s,
                        [&](const graph::scope& b, outputs h, outputs r) {
                          return outputs{
                            graph::tanh(b, graph::mul(b, w, h[0]) + r[0])};
                        },
                        {x}, {graph::zeros(s, {3}, dtype::float64)});
  auto ys = graph::map_fn(s,
                          [](const graph::scope& b, outputs r) {
                            return outputs{graph::mul(b, r[0], r[0])};
                          },
                          {hs[0]});
  auto loss = graph::reduce_sum(s, ys[0], {0, 1});
  auto g = graph::gradients(s, {loss}, {x, w});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_TRUE(g.at(0) && g.at(1));
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  for (int64_t steps : {1, 4}) {
    std::vector<double> xv;
    for (int64_t i = 0; i < steps * 3; ++i)
      xv.push_back(std::sin(0.7 * static_cast<double>(i) + 0.3));
    auto xt = tensor::from_vector<double>({steps, 3}, xv);
    auto wt = tensor::from_vector<double>({3}, {0.5, -0.8, 1.2});
    expect_gradients_match(sess, loss, x, w, g, xt, wt,
                           ", T = " + std::to_string(steps));
  }
}

TEST_F(tensor_arrays, gradients_of_split_concat_gather_and_scatter) {
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {5, 2});
  auto lengths
    = graph::constant(s, tensor::from_vector<int64_t>({3}, {2, 0, 3}));
  tensor_array::options varied{dtype::float64};
  varied.infer_shape = false; // elements of 2, 0 and 3 rows
  auto parts = tensor_array::make(s, 3, varied).split(s, x, lengths);
  auto joined = graph::reshape(s, parts.concat(s), std::vector<int64_t>{5, 2});
  // Rows 4 and 1 of x again, scattered and gathered back in reverse.
  auto rows = tensor_array::make(s, 5, {dtype::float64}).unstack(s, x);
  auto picked = rows.gather(
    s, graph::constant(s, tensor::from_vector<int32_t>({2}, {4, 1})));
  auto moved
    = tensor_array::make(s, 2, {dtype::float64})
        .scatter(s,
                 graph::constant(s, tensor::from_vector<int32_t>({2}, {1, 0})),
                 picked)
        .stack(s);
  auto weights
    = graph::constant(s, tensor::from_vector<double>(
                           {5, 2}, {1, -2, 3, 0.5, -1, 2, 0.25, 4, 2, -3}));
  auto loss = graph::reduce_sum(
                s, graph::mul(s, graph::tanh(s, joined), weights), {0, 1})
              + graph::reduce_sum(s, graph::mul(s, moved, moved), {0, 1});
  auto g = graph::gradients(s, {loss}, {x});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_TRUE(g.at(0));
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto xt = tensor::from_vector<double>(
    {5, 2}, {0.1, -0.4, 0.7, 0.2, -0.9, 0.3, 0.5, -0.6, 0.8, -0.2});
  std::vector<tensor> grads;
  auto st = sess.run({{x.name(), xt}}, {g.at(0)->name()}, {}, &grads);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_LT(
    worst_gradient_error(
      xt, grads[0],
      [&](const tensor& v) {
        std::vector<tensor> out;
        EXPECT_TRUE(sess.run({{x.name(), v}}, {loss.name()}, {}, &out).is_ok());
        return out.empty() ? NAN : out[0].scalar_value<double>();
      }),
    1e-8);
}

TEST_F(tensor_arrays, gradient_arrays_read_unwritten_elements_as_zeros) {
  // TensorArrayGradWithShape (TensorFlow 1.15's form): the gradient array's
  // elements are [2] + the forward element's shape; an element the forward
  // array wrote and nothing flowed back into reads as zeros of that shape.
  graph::scope s{e.context().ops()};
  auto ta
    = tensor_array::make(s, 2, {dtype::float32})
        .write(s, i32(s, 0),
               graph::constant(s, tensor::from_vector<float>({3}, {1, 2, 3})));
  auto outs
    = s.add_node("TensorArrayGradWithShape", "grad",
                 {ta.handle(), ta.flow(),
                  graph::constant(s, tensor::from_vector<int32_t>({1}, {2}))},
                 {{"source", std::string{"gradients"}}});
  ASSERT_EQ(outs.size(), 2u);
  auto grad = tensor_array::wrap(outs[0], outs[1], dtype::float32,
                                 core::shape::unknown());
  auto zeros = grad.read(s, i32(s, 0));
  // Closing drops the elements: a later size fails.
  auto closed = s.with_control_dependencies({zeros.op(), ta.close(s)})
                  .add_node("TensorArraySizeV3", "size_after_close",
                            {ta.handle(), ta.flow()}, {});
  auto out = run_ok(s, {}, {zeros});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], tensor::from_vector<float>({2, 3}, {0, 0, 0, 0, 0, 0}));
  std::vector<tensor> after;
  auto st = run(s, {}, {closed.at(0)}, &after);
  EXPECT_NE(st.message().find("closed"), std::string::npos) << st.to_string();
}

TEST_F(tensor_arrays, gradients_through_nested_loops_match_differences) {
  // map_fn over rows, each row through a scan: the inner loop's arrays
  // live in the outer loop's frame, one set per outer iteration.
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {3, 4});
  auto w = graph::placeholder(s.sub("w"), dtype::float64, {});
  auto ys = graph::map_fn(
    s,
    [&](const graph::scope& b, outputs row) {
      auto running = graph::scan(
        b,
        [&](const graph::scope& c, outputs acc, outputs v) {
          return outputs{graph::tanh(c, graph::mul(c, acc[0], w) + v[0])};
        },
        {row[0]}, {graph::constant(b, 0.0, dtype::float64)});
      return outputs{graph::reduce_sum(b, running[0] * running[0], {0})};
    },
    {x});
  auto loss = graph::reduce_sum(s, ys[0], {0});
  auto g = graph::gradients(s, {loss}, {x, w});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_TRUE(g.at(0) && g.at(1));
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<double> xv;
  for (int i = 0; i < 12; ++i)
    xv.push_back(std::cos(0.8 * i + 0.1));
  auto xt = tensor::from_vector<double>({3, 4}, xv);
  auto wt = tensor::scalar(0.7);
  expect_gradients_match(sess, loss, x, w, g, xt, wt, "");
}

TEST_F(tensor_arrays, reads_of_one_index_add_up_in_the_gradient_array) {
  // Index 0 read twice (clear_after_read off): both reads' gradients are
  // written to index 0 of the gradient array, which adds them (TensorFlow's
  // multiple_writes_aggregate), so d/dx = 3 + 5 per element.
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {2});
  tensor_array::options o{dtype::float64};
  o.clear_after_read = false;
  auto ta = tensor_array::make(s, 1, o).write(s, i32(s, 0), x);
  auto a = ta.read(s.sub("a"), i32(s, 0));
  auto b = ta.read(s.sub("b"), i32(s, 0));
  auto loss = graph::reduce_sum(
    s,
    graph::mul(s, a, graph::constant(s, 3.0, dtype::float64))
      + graph::mul(s, b, graph::constant(s, 5.0, dtype::float64)),
    {0});
  auto g = graph::gradients(s, {loss}, {x});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto out = run_ok(s, {{x.name(), tensor::from_vector<double>({2}, {1, 2})}},
                    {*g.at(0)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], tensor::from_vector<double>({2}, {8, 8}));
}
