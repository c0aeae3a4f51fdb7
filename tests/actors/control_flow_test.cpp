// Control flow through sessions: cond and while_loop lowered to TensorFlow's
// primitives (docs/control-flow.md). Loop results are compared with what
// TensorFlow computes for the same graphs (tests/golden/control_flow.txt,
// written by gen_control_flow_golden.py).

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "common/golden.hpp"
#include "common/loop_cases.hpp"
#include "common/process_memory.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

class control_flow : public ::testing::Test {
protected:
  /// Runs `fetches` with `feeds` in session `sess`; expects success.
  std::vector<tensor> run(actors::session& sess, actors::feed_list feeds,
                          const std::vector<graph::output>& fetches,
                          const std::vector<std::string>& targets = {}) {
    std::vector<std::string> names;
    for (const auto& f : fetches)
      names.push_back(f.name());
    std::vector<tensor> out;
    auto st = sess.run(std::move(feeds), names, targets, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return out;
  }

  /// What a loop-gradient case builds from placeholders v0 [2, 3] and
  /// c [3]: the loop's result v.
  using loop_case = std::function<graph::output(
    const graph::scope&, const graph::output& v0, const graph::output& c)>;

  /// d sum(v^2 w) / d(v0, c) for `build`, over three steps, against
  /// TensorFlow's `<stem>_dv0` and `<stem>_dc` (the inputs and w are the
  /// cond case's).
  void check_loop_gradient(const std::string& stem, const loop_case& build) {
    graph::scope s{e.context().ops()};
    auto v0 = graph::placeholder(s.sub("v0"), dtype::float64, {2, 3});
    auto c = graph::placeholder(s.sub("c"), dtype::float64, {3});
    auto v = build(s, v0, c);
    auto w = graph::constant(s, golden.at("cond_grad_w"));
    auto loss
      = graph::reduce_sum(s, graph::mul(s, graph::mul(s, v, v), w), {0, 1});
    auto g = graph::gradients(s, {loss}, {v0, c});
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    for (int step = 0; step < 3; ++step) {
      auto out = run(sess,
                     {{v0.name(), golden.at("cond_grad_x_in")},
                      {c.name(), golden.at("cond_grad_z_in")}},
                     {*g[0], *g[1]});
      ASSERT_EQ(out.size(), 2u);
      test::expect_all_near(out[0], golden.at(stem + "_dv0"), 1e-12, "dv0");
      test::expect_all_near(out[1], golden.at(stem + "_dc"), 1e-12, "dc");
    }
  }

  actors::engine e;
  std::map<std::string, tensor> golden = test::load_golden("control_flow.txt");
};

float scalar_of(const tensor& t) {
  return t.valid() ? t.scalar_value<float>() : -1.0f;
}

} // namespace

TEST_F(control_flow, cond_runs_the_branch_the_predicate_picks) {
  graph::scope s{e.context().ops()};
  auto pred = graph::placeholder(s.sub("pred"), dtype::bool_, {});
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {});
  auto out = graph::cond(
    s, pred,
    [&](const graph::scope& t) {
      return std::vector<graph::output>{
        graph::mul(t, x, graph::constant(t, 2.0))};
    },
    [&](const graph::scope& f) {
      return std::vector<graph::output>{
        graph::add(f, x, graph::constant(f, 10.0))};
    });
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_EQ(out.size(), 1u);
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  for (float v : {3.0f, -1.5f}) {
    auto yes = run(
      sess,
      {{pred.name(), tensor::scalar(true)}, {x.name(), tensor::scalar(v)}},
      {out[0]});
    EXPECT_EQ(scalar_of(yes[0]), v * 2);
    auto no = run(
      sess,
      {{pred.name(), tensor::scalar(false)}, {x.name(), tensor::scalar(v)}},
      {out[0]});
    EXPECT_EQ(scalar_of(no[0]), v + 10);
  }
}

TEST_F(control_flow, only_the_taken_branch_has_side_effects) {
  graph::scope s{e.context().ops()};
  auto a = graph::variable(s.sub("a"), {}, dtype::float32);
  auto b = graph::variable(s.sub("b"), {}, dtype::float32);
  auto init_a = graph::assign(s.sub("init_a"), a, graph::constant(s, 0.0));
  auto init_b = graph::assign(s.sub("init_b"), b, graph::constant(s, 0.0));
  auto pred = graph::placeholder(s.sub("pred"), dtype::bool_, {});
  auto out = graph::cond(
    s, pred,
    [&](const graph::scope& t) {
      return std::vector<graph::output>{
        graph::assign_add(t, a, graph::constant(t, 1.0))};
    },
    [&](const graph::scope& f) {
      return std::vector<graph::output>{
        graph::assign_add(f, b, graph::constant(f, 1.0))};
    });
  auto read_a = graph::identity(s.sub("read_a"), a);
  auto read_b = graph::identity(s.sub("read_b"), b);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  run(sess, {}, {}, {init_a.node_name(), init_b.node_name()});
  auto first = run(sess, {{pred.name(), tensor::scalar(true)}}, {out[0]});
  EXPECT_EQ(scalar_of(first[0]), 1.0f);
  auto after_first = run(sess, {}, {read_a, read_b});
  EXPECT_EQ(scalar_of(after_first[0]), 1.0f);
  EXPECT_EQ(scalar_of(after_first[1]), 0.0f) << "b's branch did not run";
  run(sess, {{pred.name(), tensor::scalar(true)}}, {out[0]});
  auto third = run(sess, {{pred.name(), tensor::scalar(false)}}, {out[0]});
  EXPECT_EQ(scalar_of(third[0]), 1.0f);
  auto after = run(sess, {}, {read_a, read_b});
  EXPECT_EQ(scalar_of(after[0]), 2.0f);
  EXPECT_EQ(scalar_of(after[1]), 1.0f);
}

TEST_F(control_flow, nested_conds_and_outside_results) {
  graph::scope s{e.context().ops()};
  auto p = graph::placeholder(s.sub("p"), dtype::bool_, {});
  auto q = graph::placeholder(s.sub("q"), dtype::bool_, {});
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {});
  auto out = graph::cond(
    s, p,
    [&](const graph::scope& t) {
      return graph::cond(
        t, q,
        [&](const graph::scope& tt) {
          return std::vector<graph::output>{
            graph::mul(tt, x, graph::constant(tt, 3.0))};
        },
        [&](const graph::scope&) {
          return std::vector<graph::output>{x}; // from outside both conds
        });
    },
    [&](const graph::scope& f) {
      return std::vector<graph::output>{graph::neg(f, x)};
    });
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  struct want_case {
    bool p, q;
    float y;
  };
  for (auto c :
       {want_case{true, true, 6.0f}, want_case{true, false, 2.0f},
        want_case{false, true, -2.0f}, want_case{false, false, -2.0f}}) {
    auto y = run(sess,
                 {{p.name(), tensor::scalar(c.p)},
                  {q.name(), tensor::scalar(c.q)},
                  {x.name(), tensor::scalar(2.0f)}},
                 {out[0]});
    EXPECT_EQ(scalar_of(y[0]), c.y) << c.p << c.q;
  }
}

// The runtime routes a Switch's value itself; a predicate that is not a
// boolean scalar still gets the kernel's error, naming the node.
TEST_F(control_flow, a_switch_on_a_vector_predicate_fails_naming_it) {
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {2});
  auto pred
    = graph::placeholder(s.sub("pred"), dtype::bool_, core::shape::unknown());
  auto sw = s.add_node("Switch", "sw", {x, pred}, {{"T", dtype::float32}});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> got;
  auto st = sess.run({{x.name(), tensor{dtype::float32, {2}}},
                      {pred.name(), tensor{dtype::bool_, {2}}}},
                     {sw[1].name()}, {}, &got);
  EXPECT_EQ(st.code(), core::errc::invalid_argument) << st.to_string();
  EXPECT_EQ(st.node(), "sw");
  EXPECT_EQ(st.op(), "Switch");
  EXPECT_NE(st.message().find("scalar predicate"), std::string::npos)
    << st.message();
  // A scalar one routes the value.
  auto ok = run(sess,
                {{x.name(), tensor::from_vector<float>({2}, {3, 4})},
                 {pred.name(), tensor::scalar(true)}},
                {sw[1]});
  EXPECT_EQ(ok[0].data<float>()[1], 4.0f);
}

TEST_F(control_flow, fetching_the_untaken_branch_is_an_error) {
  graph::scope s{e.context().ops()};
  auto pred = graph::placeholder(s.sub("pred"), dtype::bool_, {});
  graph::output inside;
  auto out = graph::cond(
    s, pred,
    [&](const graph::scope& t) {
      inside = graph::constant(t, 1.0);
      return std::vector<graph::output>{inside};
    },
    [&](const graph::scope& f) {
      return std::vector<graph::output>{graph::constant(f, 2.0)};
    });
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> got;
  auto st = sess.run({{pred.name(), tensor::scalar(false)}},
                     {inside.name(), out[0].name()}, {}, &got);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_NE(st.message().find("dead"), std::string::npos) << st.message();
  // The session goes on.
  auto ok = run(sess, {{pred.name(), tensor::scalar(false)}}, {out[0]});
  EXPECT_EQ(scalar_of(ok[0]), 2.0f);
}

TEST_F(control_flow, branches_of_different_dtypes_fail_at_build_time) {
  graph::scope s{e.context().ops()};
  auto pred = graph::placeholder(s.sub("pred"), dtype::bool_, {});
  graph::cond(
    s, pred,
    [&](const graph::scope& t) {
      return std::vector<graph::output>{graph::constant(t, 1.0)};
    },
    [&](const graph::scope& f) {
      return std::vector<graph::output>{
        graph::constant(f, 1.0, dtype::float64)};
    });
  EXPECT_EQ(s.status().code(), core::errc::invalid_argument);
  EXPECT_EQ(s.status().op(), "Merge");
  EXPECT_NE(s.status().message().find("dtype mismatch"), std::string::npos);
}

namespace {

/// sum 1..n, n fed at run time: loop variables (i, sum).
struct sum_loop {
  graph::scope s;
  graph::output n, sum, iterations;

  sum_loop(const ops::op_registry& ops, graph::while_options options = {})
    : s(ops) {
    n = graph::placeholder(s.sub("n"), dtype::int64, {});
    auto outs = graph::while_loop(
      s,
      [&](const graph::scope& c, const std::vector<graph::output>& v) {
        return graph::less_equal(c, v[0], n);
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        auto one = graph::constant(b, 1.0, dtype::int64);
        return std::vector<graph::output>{graph::add(b, v[0], one),
                                          graph::add(b, v[1], v[0])};
      },
      {graph::constant(s.sub("i0"), 1.0, dtype::int64),
       graph::constant(s.sub("sum0"), 0.0, dtype::int64)},
      options);
    if (outs.size() == 2) {
      iterations = outs[0];
      sum = outs[1];
    }
  }
};

int64_t int_of(const tensor& t) {
  return t.valid() ? t.scalar_value<int64_t>() : -1;
}

} // namespace

TEST_F(control_flow, while_loop_sums_one_to_n_fed_at_run_time) {
  sum_loop l{e.context().ops()};
  ASSERT_TRUE(l.s.ok()) << l.s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(l.s.graph_def()).is_ok());
  for (int64_t n : {10, 1, 0, 1000}) {
    auto out
      = run(sess, {{l.n.name(), tensor::scalar(n)}}, {l.sum, l.iterations});
    ASSERT_EQ(out.size(), 2u);
    auto stem = "sum_n" + std::to_string(n);
    EXPECT_EQ(int_of(out[0]), int_of(golden.at(stem + "_total"))) << n;
    EXPECT_EQ(int_of(out[1]), int_of(golden.at(stem + "_iterations"))) << n;
  }
}

TEST_F(control_flow, fibonacci_and_maximum_iterations) {
  graph::scope s{e.context().ops()};
  auto k = graph::placeholder(s.sub("k"), dtype::int64, {});
  auto fib = [&](graph::while_options options) {
    return graph::while_loop(
      s,
      [&](const graph::scope& c, const std::vector<graph::output>& v) {
        return graph::less(c, v[0], k);
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        return std::vector<graph::output>{
          graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)), v[2],
          graph::add(b, v[1], v[2])};
      },
      {graph::constant(s, 0.0, dtype::int64),
       graph::constant(s, 0.0, dtype::int64),
       graph::constant(s, 1.0, dtype::int64)},
      options);
  };
  auto plain = fib({});
  graph::while_options capped;
  capped.maximum_iterations = 5;
  auto five = fib(capped);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto out = run(sess, {{k.name(), tensor::scalar(int64_t{50})}},
                 {plain[1], five[0], five[1]});
  EXPECT_EQ(int_of(out[0]), int_of(golden.at("fib50")));
  EXPECT_EQ(int_of(out[1]), int_of(golden.at("capped_iterations")));
  EXPECT_EQ(int_of(out[2]), int_of(golden.at("capped_fib")));
}

TEST_F(control_flow, nested_loops_build_a_matrix) {
  // for i in 0..3: row = []; for j in 0..4: row.append(10 i + j); m.append(row)
  graph::scope s{e.context().ops()};
  auto empty = graph::constant(
    s, tensor::from_vector<float>({0, 4}, std::vector<float>{}));
  graph::while_options rows_grow;
  rows_grow.shape_invariants = {core::shape{}, core::shape{-1, 4}};
  auto outer = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 3.0));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      graph::while_options cols_grow;
      cols_grow.shape_invariants = {core::shape{}, core::shape{-1}};
      auto inner = graph::while_loop(
        b,
        [&](const graph::scope& c, const std::vector<graph::output>& w) {
          return graph::less(c, w[0], graph::constant(c, 4.0));
        },
        [&](const graph::scope& ib, const std::vector<graph::output>& w) {
          auto value = graph::add(
            ib, graph::mul(ib, v[0], graph::constant(ib, 10.0)), w[0]);
          return std::vector<graph::output>{
            graph::add(ib, w[0], graph::constant(ib, 1.0)),
            graph::concat(ib, {w[1], graph::reshape(ib, value, {1})}, 0)};
        },
        {graph::constant(b, 0.0),
         graph::constant(b, tensor::from_vector<float>({0}, {}))},
        cols_grow);
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0)),
        graph::concat(b, {v[1], graph::reshape(b, inner[1], {1, 4})}, 0)};
    },
    {graph::constant(s, 0.0), empty}, rows_grow);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto out = run(sess, {}, {outer[1]});
  test::expect_all_near(out[0], golden.at("matrix"), 0.0, "matrix");
}

TEST_F(control_flow, a_loop_in_the_untaken_branch_ends_dead) {
  graph::scope s{e.context().ops()};
  auto pred = graph::placeholder(s.sub("pred"), dtype::bool_, {});
  auto n = graph::placeholder(s.sub("n"), dtype::float32, {});
  auto out = graph::cond(
    s, pred,
    [&](const graph::scope& t) {
      return graph::while_loop(
        t,
        [&](const graph::scope& c, const std::vector<graph::output>& v) {
          return graph::less(c, v[0], n);
        },
        [&](const graph::scope& b, const std::vector<graph::output>& v) {
          return std::vector<graph::output>{
            graph::add(b, v[0], graph::constant(b, 1.0))};
        },
        {graph::constant(t, 0.0)});
    },
    [&](const graph::scope& f) {
      return std::vector<graph::output>{graph::neg(f, n)};
    });
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  for (int step = 0; step < 3; ++step) {
    auto skipped = run(
      sess,
      {{pred.name(), tensor::scalar(false)}, {n.name(), tensor::scalar(7.0f)}},
      {out[0]});
    EXPECT_EQ(scalar_of(skipped[0]), scalar_of(golden.at("branch_loop_false")));
    auto looped = run(
      sess,
      {{pred.name(), tensor::scalar(true)}, {n.name(), tensor::scalar(7.0f)}},
      {out[0]});
    EXPECT_EQ(scalar_of(looped[0]), scalar_of(golden.at("branch_loop_true")));
  }
}

TEST_F(control_flow, cond_inside_a_loop) {
  // Collatz steps of 27: while x != 1: x = x even ? x / 2 : 3x + 1.
  graph::scope s{e.context().ops()};
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::not_equal(c, v[0], graph::constant(c, 1.0, dtype::int64));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto two = graph::constant(b, 2.0, dtype::int64);
      auto even = graph::equal(b, graph::floor_mod(b, v[0], two),
                               graph::constant(b, 0.0, dtype::int64));
      auto next = graph::cond(
        b, even,
        [&](const graph::scope& t) {
          return std::vector<graph::output>{graph::floor_div(t, v[0], two)};
        },
        [&](const graph::scope& f) {
          return std::vector<graph::output>{graph::add(
            f, graph::mul(f, v[0], graph::constant(f, 3.0, dtype::int64)),
            graph::constant(f, 1.0, dtype::int64))};
        });
      return std::vector<graph::output>{
        next[0], graph::add(b, v[1], graph::constant(b, 1.0, dtype::int64))};
    },
    {graph::constant(s, 27.0, dtype::int64),
     graph::constant(s, 0.0, dtype::int64)});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto out = run(sess, {}, {outs[0], outs[1]});
  EXPECT_EQ(int_of(out[0]), int_of(golden.at("collatz_x")));
  EXPECT_EQ(int_of(out[1]), int_of(golden.at("collatz_steps")));
}

TEST_F(control_flow, parallel_iterations_do_not_change_results) {
  for (int64_t p : {1, 10}) {
    graph::while_options options;
    options.parallel_iterations = p;
    sum_loop l{e.context().ops(), options};
    ASSERT_TRUE(l.s.ok());
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(l.s.graph_def()).is_ok());
    auto out = run(sess, {{l.n.name(), tensor::scalar(int64_t{300})}}, {l.sum});
    EXPECT_EQ(int_of(out[0]), 45150) << p;
  }
}

// A loop actor hands a value straight to a consumer that fires on it
// alone, up to a depth: a body of 40 single-input nodes in a row goes past
// that depth many times and through the queue in between, with one and with
// many iterations in flight; the result is the same.
TEST_F(control_flow, a_long_chain_in_a_loop_body_computes_the_same) {
  constexpr int64_t iterations = 50;
  constexpr int chain = 40;
  for (int64_t p : {1, 10}) {
    graph::scope s{e.context().ops()};
    auto limit = graph::placeholder(s.sub("n"), dtype::int64, {});
    graph::while_options options;
    options.parallel_iterations = p;
    auto outs = graph::while_loop(
      s,
      [&](const graph::scope& c, const std::vector<graph::output>& v) {
        return graph::less(c, v[0], limit);
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        // x + 1 as 40 steps of +1/40, through Identities and Negs.
        auto x = v[1];
        for (int k = 0; k < chain; ++k)
          x = graph::neg(
            b, graph::neg(
                 b, graph::identity(
                      b, graph::add(b, x, graph::constant(b, 1.0 / chain)))));
        return std::vector<graph::output>{
          graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)), x};
      },
      {graph::constant(s.sub("i0"), 0.0, dtype::int64),
       graph::constant(s.sub("x0"), 0.0)},
      options);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    auto out
      = run(sess, {{limit.name(), tensor::scalar(iterations)}}, {outs[1]});
    EXPECT_NEAR(scalar_of(out[0]), float(iterations), 1e-3) << p;
  }
}

TEST_F(control_flow, large_kernels_of_iterations_run_off_the_loop_actor) {
  // Each iteration multiplies (i + 1) * A by B, 128 x 128: inputs large
  // enough that Mul and MatMul run on actors of their own, several
  // iterations at once with parallel_iterations 8. The sum over 6
  // iterations equals 21 * sum(A B), computed here in double.
  constexpr int64_t n = 128;
  auto a = tensor{dtype::float32, {n, n}};
  auto b = tensor{dtype::float32, {n, n}};
  for (int64_t i = 0; i < n * n; ++i) {
    a.mutable_data<float>()[i] = static_cast<float>((i * 7) % 13) / 13.0f;
    b.mutable_data<float>()[i]
      = static_cast<float>((i * 5) % 11) / 11.0f - 0.4f;
  }
  double product_sum = 0;
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t c = 0; c < n; ++c)
        product_sum += double(a.data<float>()[r * n + k])
                       * double(b.data<float>()[k * n + c]);
  for (int64_t p : {1, 8}) {
    graph::scope s{e.context().ops()};
    auto ca = graph::constant(s.sub("a"), a);
    auto cb = graph::constant(s.sub("b"), b);
    graph::while_options options;
    options.parallel_iterations = p;
    auto outs = graph::while_loop(
      s,
      [&](const graph::scope& c, const std::vector<graph::output>& v) {
        return graph::less(c, v[0], graph::constant(c, 6.0, dtype::int64));
      },
      [&](const graph::scope& body, const std::vector<graph::output>& v) {
        auto one = graph::constant(body, 1.0, dtype::int64);
        auto next = graph::add(body, v[0], one);
        auto scale = graph::cast(body, next, dtype::float32);
        auto m = graph::matmul(body, graph::mul(body, ca, scale), cb);
        return std::vector<graph::output>{
          next, graph::add(body, v[1], graph::reduce_sum(body, m, {0, 1}))};
      },
      {graph::constant(s, 0.0, dtype::int64), graph::constant(s, 0.0)},
      options);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    for (int step = 0; step < 3; ++step) {
      auto out = run(sess, {}, {outs[1]});
      ASSERT_EQ(out.size(), 1u);
      EXPECT_NEAR(scalar_of(out[0]), 21.0 * product_sum,
                  1e-4 * std::abs(21.0 * product_sum))
        << "parallel_iterations " << p << ", step " << step;
    }
  }
}

TEST_F(control_flow,
       a_failing_large_kernel_names_its_node_and_the_next_step_works) {
  // A MatMul on inputs large enough to run on an actor of its own fails on
  // the shapes fed at run time; the error names it, and the session goes on.
  graph::scope s{e.context().ops()};
  auto x
    = graph::placeholder(s.sub("x"), dtype::float32, core::shape::unknown());
  auto w
    = graph::placeholder(s.sub("w"), dtype::float32, core::shape::unknown());
  auto y
    = graph::reduce_sum(s, graph::matmul(s.sub("big_matmul"), x, w), {0, 1});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto ones = [](int64_t r, int64_t c) {
    tensor t{dtype::float32, {r, c}};
    std::fill_n(t.mutable_data<float>(), r * c, 1.0f);
    return t;
  };
  std::vector<tensor> out;
  auto st = sess.run({{x.name(), ones(200, 100)}, {w.name(), ones(200, 100)}},
                     {y.name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.node(), "big_matmul/MatMul");
  EXPECT_EQ(st.op(), "MatMul");
  EXPECT_NE(st.message().find("inner dimensions"), std::string::npos);
  auto ok
    = run(sess, {{x.name(), ones(200, 100)}, {w.name(), ones(100, 200)}}, {y});
  EXPECT_EQ(scalar_of(ok[0]), 200.0f * 200.0f * 100.0f);
}

TEST_F(control_flow, concurrent_steps_each_run_their_loops) {
  sum_loop l{e.context().ops()};
  ASSERT_TRUE(l.s.ok());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(l.s.graph_def()).is_ok());
  std::vector<std::thread> threads;
  std::vector<int64_t> got(8, -1);
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&, k] {
      std::vector<tensor> out;
      auto st = sess.run({{l.n.name(), tensor::scalar(int64_t{100 + k})}},
                         {l.sum.name()}, {}, &out);
      if (st.is_ok())
        got[static_cast<size_t>(k)] = int_of(out[0]);
    });
  for (auto& t : threads)
    t.join();
  for (int64_t k = 0; k < 8; ++k)
    EXPECT_EQ(got[static_cast<size_t>(k)], (100 + k) * (101 + k) / 2) << k;
}

TEST_F(control_flow, an_error_in_an_iteration_fails_the_step_cleanly) {
  // Iteration 5 divides by zero (integer); the next step works.
  graph::scope s{e.context().ops()};
  auto zero_at = graph::placeholder(s.sub("zero_at"), dtype::int64, {});
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 10.0, dtype::int64));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto divisor = graph::sub(b, v[0], zero_at);
      auto q = graph::div(b, graph::constant(b, 100.0, dtype::int64), divisor);
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)),
        graph::add(b, v[1], q)};
    },
    {graph::constant(s, 0.0, dtype::int64),
     graph::constant(s, 0.0, dtype::int64)});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto st = sess.run({{zero_at.name(), tensor::scalar(int64_t{5})}},
                     {outs[1].name()}, {}, &out);
  EXPECT_EQ(st.code(), core::errc::invalid_argument);
  EXPECT_EQ(st.op(), "Div");
  EXPECT_NE(st.message().find("division by zero"), std::string::npos);
  // zero_at = -1 never divides by zero: sum of 100 / (i + 1), i < 10.
  auto ok
    = run(sess, {{zero_at.name(), tensor::scalar(int64_t{-1})}}, {outs[1]});
  EXPECT_EQ(int_of(ok[0]), 100 + 50 + 33 + 25 + 20 + 16 + 14 + 12 + 11 + 10);
}

TEST_F(control_flow, a_variable_updated_in_every_iteration) {
  graph::scope s{e.context().ops()};
  auto v = graph::variable(s.sub("v"), {}, dtype::float32);
  auto init = graph::assign(s.sub("init"), v, graph::constant(s, 0.0));
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& x) {
      return graph::less(c, x[0], graph::constant(c, 5.0));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& x) {
      auto updated = graph::assign_add(b, v, graph::constant(b, 2.0), true);
      auto after = b.with_control_dependencies({updated.op()});
      return std::vector<graph::output>{
        graph::add(after, x[0], graph::constant(after, 1.0))};
    },
    {graph::constant(s, 0.0)});
  auto read = graph::identity(
    s.sub("read").with_control_dependencies({outs[0].op()}), v);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  run(sess, {}, {}, {init.node_name()});
  auto out = run(sess, {}, {outs[0], read});
  EXPECT_EQ(scalar_of(out[0]), 5.0f);
  EXPECT_EQ(scalar_of(out[1]), 10.0f);
}

TEST_F(control_flow, a_step_ends_after_its_last_side_effect) {
  // The AssignAdd in the body is a target that nothing reads, and its
  // value comes from a MatMul large enough to run off the loop's actor: the
  // loop's result is ready long before the last update. The step still
  // ends only when every node of it has run (TensorFlow's executor counts
  // outstanding ops; the runtime counts tokens), so a later step reads all
  // five updates: 5 * sum((J/128)(J/128)) = 5 * 128 (J all ones, exact).
  graph::scope s{e.context().ops()};
  auto v = graph::variable(s.sub("v"), {}, dtype::float32);
  auto init = graph::assign(s.sub("init"), v, graph::constant(s, 0.0));
  tensor a{dtype::float32, {128, 128}};
  std::fill_n(a.mutable_data<float>(), 128 * 128, 1.0f / 128.0f);
  auto ca = graph::constant(s.sub("a"), a);
  std::string update;
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& x) {
      return graph::less(c, x[0], graph::constant(c, 5.0));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& x) {
      auto total = graph::reduce_sum(b, graph::matmul(b, ca, ca), {0, 1});
      auto updated = graph::assign_add(b, v, total, true);
      update = updated.node_name();
      return std::vector<graph::output>{
        graph::add(b, x[0], graph::constant(b, 1.0))};
    },
    {graph::constant(s, 0.0)});
  auto read = graph::identity(s.sub("read"), v);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  for (int step = 0; step < 3; ++step) {
    run(sess, {}, {}, {init.node_name()});
    auto out = run(sess, {}, {outs[0]}, {update});
    EXPECT_EQ(scalar_of(out[0]), 5.0f);
    EXPECT_EQ(scalar_of(run(sess, {}, {read})[0]), 640.0f) << step;
  }
}

TEST_F(control_flow, a_loop_spanning_two_devices_equals_one_device) {
  // x_{k+1} = x_k * 0.5 + c (on cpu:1), with an inner counted loop on
  // cpu:1 adding k; the condition and the counter stay on cpu:0.
  auto build = [&](const std::string& body_device, graph::scope& s,
                   graph::output* n, std::vector<graph::output>* outs) {
    *n = graph::placeholder(s.sub("n"), dtype::int64, {});
    *outs = test::halving_loop(s, *n, body_device);
  };
  std::vector<float> results;
  for (const char* device : {"cpu:0", "cpu:1"}) {
    graph::scope s{e.context().ops()};
    graph::output n;
    std::vector<graph::output> outs;
    build(device, s, &n, &outs);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    for (int64_t steps : {0, 1, 20}) {
      auto out = run(sess, {{n.name(), tensor::scalar(steps)}}, {outs[1]});
      results.push_back(scalar_of(out[0]));
    }
  }
  // x -> x / 2 + 0 + 1 + 2 + 3, as TensorFlow computes it.
  EXPECT_EQ(results[0], scalar_of(golden.at("halving_n0")));
  EXPECT_EQ(results[1], scalar_of(golden.at("halving_n1")));
  EXPECT_EQ(results[2], scalar_of(golden.at("halving_n20")));
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(results[i], results[i + 3]) << "one device vs two, case " << i;
}

TEST_F(control_flow, a_node_reading_only_a_loop_constant_runs_every_step) {
  // x_{k+1} = x_k + identity(c): the Identity's one input is the Enter of
  // c (a loop constant), as where a frozen Keras RNN reads its weights.
  // TensorFlow runs it in every iteration; here on the loop's device and
  // on another.
  for (const char* device : {"cpu:0", "cpu:1"}) {
    graph::scope s{e.context().ops()};
    auto n = graph::placeholder(s.sub("n"), dtype::int64, {});
    auto c = graph::placeholder(s.sub("c"), dtype::float64, {});
    auto outs = graph::while_loop(
      s,
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        return graph::less(b, v[0], n);
      },
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        auto read = graph::identity(b.with_device(device).sub("read"), c);
        return std::vector<graph::output>{
          graph::add(b, v[0], graph::constant(b, int64_t{1})),
          graph::add(b, v[1], read)};
      },
      {graph::constant(s, int64_t{0}),
       graph::constant(s, tensor::scalar(0.5))});
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    // As TensorFlow writes it: the Enter its only input (the builder may
    // anchor it to the loop).
    auto g = s.graph_def();
    for (auto& node : g.mutable_nodes())
      if (node.name == "while/body/read/Identity") {
        auto& in = node.inputs;
        in.erase(std::remove_if(in.begin(), in.end(),
                                [](const auto& x) { return x[0] == '^'; }),
                 in.end());
        ASSERT_EQ(in.size(), 1u);
      }
    actors::session sess{e};
    auto st = sess.extend(g);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    for (int64_t steps : {0, 1, 7}) {
      auto out = run(
        sess,
        {{n.name(), tensor::scalar(steps)}, {c.name(), tensor::scalar(0.25)}},
        {outs[1]});
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].scalar_value<double>(),
                0.5 + 0.25 * static_cast<double>(steps))
        << device << ", " << steps << " steps";
    }
  }
}

namespace {} // namespace

TEST_F(control_flow, a_long_loop_runs_in_bounded_memory) {
  // A counter that is cheap to compute beside a value that is not: without
  // parallel_iterations the counter would run ahead of the value and the
  // iterations it started would pile up.
  graph::scope s{e.context().ops()};
  auto n = graph::placeholder(s.sub("n"), dtype::int64, {});
  auto x0 = graph::constant(
    s, tensor::from_vector<float>({1024}, std::vector<float>(1024, 0.0f)));
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], n);
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto x = v[1];
      for (int k = 0; k < 4; ++k)
        x = graph::add(b, graph::mul(b, x, graph::constant(b, 0.5)),
                       graph::constant(b, 1.0));
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)), x};
    },
    {graph::constant(s, 0.0, dtype::int64), x0});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  // A short run compiles and settles the heap.
  run(sess, {{n.name(), tensor::scalar(int64_t{100})}}, {outs[1]});
  test::heap_peak peak;
  auto out
    = run(sess, {{n.name(), tensor::scalar(int64_t{100000})}}, {outs[1]});
  EXPECT_NEAR(out[0].data<float>()[0], 2.0f, 1e-5);
  // Measured (peak resident set): 0.1 MB with iterations bounded, 34 MB
  // with parallel_iterations set out of reach.
  EXPECT_LT(peak.stop(), 10.0) << "the loop's state grew";
}

TEST_F(control_flow, finished_inner_loop_instances_free_their_state) {
  // An outer loop of n iterations runs an inner loop of two that reads the
  // outer x (256 doubles) as a loop constant: acc += 2 x, then x += 1. Each
  // inner frame instance keeps x while it runs; retired when its work is
  // done, the instances do not pile up over the outer iterations. Result:
  // acc = 2 (0 + 1 + ... + (n - 1)) = n (n - 1) in every element.
  graph::scope s{e.context().ops()};
  auto n = graph::placeholder(s.sub("n"), dtype::int64, {});
  auto zeros = [&](const graph::scope& sc) {
    return graph::constant(
      sc, tensor::from_vector<double>({256}, std::vector<double>(256, 0.0)));
  };
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], n);
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto x = v[1];
      auto inner = graph::while_loop(
        b,
        [&](const graph::scope& c, const std::vector<graph::output>& w) {
          return graph::less(c, w[0], graph::constant(c, 2.0, dtype::int64));
        },
        [&](const graph::scope& ib, const std::vector<graph::output>& w) {
          return std::vector<graph::output>{
            graph::add(ib, w[0], graph::constant(ib, 1.0, dtype::int64)),
            graph::add(ib, w[1], x)};
        },
        {graph::constant(b, 0.0, dtype::int64), v[2]});
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)),
        graph::add(b, x, graph::constant(b, 1.0, dtype::float64)), inner[1]};
    },
    {graph::constant(s, 0.0, dtype::int64), zeros(s.sub("x0")),
     zeros(s.sub("acc0"))});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  run(sess, {{n.name(), tensor::scalar(int64_t{100})}}, {outs[2]});
  test::heap_peak peak;
  constexpr int64_t count = 20000;
  auto out = run(sess, {{n.name(), tensor::scalar(count)}}, {outs[1], outs[2]});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data<double>()[255], double(count));
  EXPECT_EQ(out[1].data<double>()[0], double(count) * double(count - 1));
  EXPECT_EQ(out[1].data<double>()[255], double(count) * double(count - 1));
  // Kept until the step ended, the inner instances' loop constants alone
  // would take count * 2 KB = 40 MB.
  EXPECT_LT(peak.stop(), 10.0) << "inner frame instances piled up";
}

TEST_F(control_flow, an_outer_loop_waits_for_an_inner_loop_across_devices) {
  // The inner loop's sum runs on cpu:1, the rest on cpu:0; the outer loop
  // allows two iterations in flight and runs more, so it must learn that
  // each inner instance finished although that instance spans devices.
  // Each inner loop adds 0 + 1 + 2: after n outer iterations acc = 3 n.
  graph::scope s{e.context().ops()};
  auto n = graph::placeholder(s.sub("n"), dtype::int64, {});
  graph::while_options options;
  options.parallel_iterations = 2;
  auto outs = graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], n);
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto inner = graph::while_loop(
        b,
        [&](const graph::scope& c, const std::vector<graph::output>& w) {
          return graph::less(c, w[0], graph::constant(c, 3.0));
        },
        [&](const graph::scope& ib, const std::vector<graph::output>& w) {
          return std::vector<graph::output>{
            graph::add(ib, w[0], graph::constant(ib, 1.0)),
            graph::add(ib.with_device("cpu:1"), w[1], w[0])};
        },
        {graph::constant(b, 0.0), v[1]});
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)), inner[1]};
    },
    {graph::constant(s, 0.0, dtype::int64), graph::constant(s, 0.0)}, options);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  for (int64_t count : {0, 1, 7, 30}) {
    auto out = run(sess, {{n.name(), tensor::scalar(count)}}, {outs[1]});
    EXPECT_EQ(scalar_of(out[0]), 3.0f * float(count)) << count;
  }
}

TEST_F(control_flow, gradients_through_a_cond_equal_tensorflows) {
  // y = x * (pred ? (!pred ? x : tanh(x * x * z)) : exp(x) + z), the
  // graph gen_control_flow_golden.py differentiates with tf.gradients.
  for (bool taken : {false, true}) {
    SCOPED_TRACE(taken);
    graph::scope s{e.context().ops()};
    auto x = graph::placeholder(s.sub("x"), dtype::float64, {2, 3});
    auto z = graph::placeholder(s.sub("z"), dtype::float64, {3});
    auto inner = graph::constant(s, tensor::scalar(!taken));
    auto y = graph::cond(
      s, graph::constant(s, tensor::scalar(taken)),
      [&](const graph::scope& t) {
        auto sq = graph::mul(t, graph::mul(t, x, x), z);
        return graph::cond(
          t, inner,
          [&](const graph::scope&) { return std::vector<graph::output>{x}; },
          [&](const graph::scope& u) {
            return std::vector<graph::output>{graph::tanh(u, sq)};
          });
      },
      [&](const graph::scope& f) {
        return std::vector<graph::output>{graph::add(f, graph::exp(f, x), z)};
      });
    auto w = graph::constant(s, golden.at("cond_grad_w"));
    auto loss
      = graph::reduce_sum(s, graph::mul(s, graph::mul(s, y[0], x), w), {0, 1});
    auto g = graph::gradients(s, {loss}, {x, z});
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    auto out = run(sess,
                   {{x.name(), golden.at("cond_grad_x_in")},
                    {z.name(), golden.at("cond_grad_z_in")}},
                   {*g[0], *g[1]});
    auto stem = std::string{"cond_grad_"} + (taken ? "true" : "false");
    test::expect_all_near(out[0], golden.at(stem + "_dx"), 1e-12, stem + "_dx");
    test::expect_all_near(out[1], golden.at(stem + "_dz"), 1e-12, stem + "_dz");
  }
}

TEST_F(control_flow, gradients_through_a_while_loop_equal_tensorflows) {
  // v <- tanh(v * c + v0) while i < 4, and the same capped by
  // maximum_iterations 3; d sum(v^2 w) / d(v0, c), as tf.gradients gives
  // them. Four threads run the step at once: each step has its own stacks.
  for (int64_t parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    graph::scope s{e.context().ops()};
    auto v0 = graph::placeholder(s.sub("v0"), dtype::float64, {2, 3});
    auto c = graph::placeholder(s.sub("c"), dtype::float64, {3});
    auto w = graph::constant(s, golden.at("cond_grad_w"));
    auto loop = [&](std::optional<int64_t> cap) {
      graph::while_options o;
      o.parallel_iterations = parallel;
      o.maximum_iterations = cap;
      auto outs = graph::while_loop(
        s,
        [](const graph::scope& t, const std::vector<graph::output>& v) {
          return graph::less(t, v[0], graph::constant(t, 4.0, dtype::int64));
        },
        [&](const graph::scope& b, const std::vector<graph::output>& v) {
          return std::vector<graph::output>{
            graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)),
            graph::tanh(b, graph::add(b, graph::mul(b, v[1], c), v0))};
        },
        {graph::constant(s, 0.0, dtype::int64), v0}, o);
      auto loss = graph::reduce_sum(
        s, graph::mul(s, graph::mul(s, outs[1], outs[1]), w), {0, 1});
      return graph::gradients(s, {loss}, {v0, c});
    };
    auto full = loop(std::nullopt);
    auto capped = loop(3);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int step = 0; step < 10; ++step) {
          auto out = run(sess,
                         {{v0.name(), golden.at("cond_grad_x_in")},
                          {c.name(), golden.at("cond_grad_z_in")}},
                         {*full[0], *full[1], *capped[0], *capped[1]});
          if (out.size() != 4)
            return;
          test::expect_all_near(out[0], golden.at("loop_grad_dv0"), 1e-12,
                                "dv0");
          test::expect_all_near(out[1], golden.at("loop_grad_dc"), 1e-12, "dc");
          test::expect_all_near(out[2], golden.at("loop_grad_capped_dv0"),
                                1e-12, "capped dv0");
          test::expect_all_near(out[3], golden.at("loop_grad_capped_dc"), 1e-12,
                                "capped dc");
        }
      });
    for (auto& t : threads)
      t.join();
  }
}

TEST_F(control_flow, gradients_through_nested_loops_equal_tensorflows) {
  // Three times v <- inner(v) * c; the inner loop: twice v <- tanh(v + v0).
  auto below = [](double n) {
    return [n](const graph::scope& t, const std::vector<graph::output>& v) {
      return graph::less(t, v[0], graph::constant(t, n, dtype::int64));
    };
  };
  auto next = [](const graph::scope& b, const graph::output& i) {
    return graph::add(b, i, graph::constant(b, 1.0, dtype::int64));
  };
  check_loop_gradient("nested_loop_grad", [&](const graph::scope& s,
                                              const graph::output& v0,
                                              const graph::output& c) {
    return graph::while_loop(
      s, below(3),
      [&](const graph::scope& b, const std::vector<graph::output>& v) {
        auto inner = graph::while_loop(
          b, below(2),
          [&](const graph::scope& ib, const std::vector<graph::output>& u) {
            return std::vector<graph::output>{
              next(ib, u[0]), graph::tanh(ib, graph::add(ib, u[1], v0))};
          },
          {graph::constant(b, 0.0, dtype::int64), v[1]});
        return std::vector<graph::output>{next(b, v[0]),
                                          graph::mul(b, inner[1], c)};
      },
      {graph::constant(s, 0.0, dtype::int64), v0})[1];
  });
}

TEST_F(control_flow, gradients_through_a_cond_in_a_loop_equal_tensorflows) {
  // Five times v <- (i even) ? v * c : tanh(v) + c.
  for (int64_t parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    check_loop_gradient("cond_in_loop_grad", [&](const graph::scope& s,
                                                 const graph::output& v0,
                                                 const graph::output& c) {
      graph::while_options o;
      o.parallel_iterations = parallel;
      return graph::while_loop(
        s,
        [](const graph::scope& t, const std::vector<graph::output>& v) {
          return graph::less(t, v[0], graph::constant(t, 5.0, dtype::int64));
        },
        [&](const graph::scope& b, const std::vector<graph::output>& v) {
          auto even = graph::equal(
            b, graph::floor_mod(b, v[0], graph::constant(b, 2.0, dtype::int64)),
            graph::constant(b, 0.0, dtype::int64));
          auto next = graph::cond(
            b, even,
            [&](const graph::scope& t) {
              return std::vector<graph::output>{graph::mul(t, v[1], c)};
            },
            [&](const graph::scope& f) {
              return std::vector<graph::output>{
                graph::add(f, graph::tanh(f, v[1]), c)};
            });
          return std::vector<graph::output>{
            graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)),
            next[0]};
        },
        {graph::constant(s, 0.0, dtype::int64), v0}, o)[1];
    });
  }
}

TEST_F(control_flow, a_control_trigger_runs_after_dead_inputs_too) {
  // The untaken branch's node is dead; a ControlTrigger after it is live
  // (TensorFlow's rule), and so is a constant that waits for the trigger.
  graph::scope s{e.context().ops()};
  auto pred = graph::placeholder(s.sub("pred"), dtype::bool_, {});
  std::string untaken;
  graph::cond(
    s, pred,
    [&](const graph::scope& t) {
      auto x = graph::constant(t, 1.0);
      untaken = x.node_name();
      return std::vector<graph::output>{x};
    },
    [&](const graph::scope& f) {
      return std::vector<graph::output>{graph::constant(f, 2.0)};
    });
  auto trigger = s.with_control_dependencies({graph::operation{untaken}})
                   .add_operation("ControlTrigger", "trigger", {}, {});
  auto after
    = graph::constant(s.with_control_dependencies({trigger}).sub("after"), 7.0);
  auto plain = graph::identity(
    s.with_control_dependencies({graph::operation{untaken}}).sub("plain"),
    graph::constant(s, 3.0));
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto out = run(sess, {{pred.name(), tensor::scalar(false)}}, {after});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].scalar_value<float>(), 7.0f);
  // Without the trigger, the dead control input makes the node dead.
  std::vector<tensor> fetched;
  auto st = sess.run({{pred.name(), tensor::scalar(false)}}, {plain.name()}, {},
                     &fetched);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("dead"), std::string::npos) << st.to_string();
}
