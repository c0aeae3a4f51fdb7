// Control flow through sessions: cond lowered to Switch/Merge, with only the
// taken branch running (docs/control-flow.md).

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"

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

  actors::engine e;
};

float scalar_of(const tensor& t) {
  return t.valid() ? t.scalar_value<float>() : -1.0f;
}

} // namespace

TEST_F(control_flow, cond_runs_the_branch_the_predicate_picks) {
  graph::scope s{e.context().ops};
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
  graph::scope s{e.context().ops};
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
  graph::scope s{e.context().ops};
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

TEST_F(control_flow, fetching_the_untaken_branch_is_an_error) {
  graph::scope s{e.context().ops};
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
  graph::scope s{e.context().ops};
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
  sum_loop l{e.context().ops};
  ASSERT_TRUE(l.s.ok()) << l.s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(l.s.graph_def()).is_ok());
  for (int64_t n : {10, 1, 0, 1000}) {
    auto out
      = run(sess, {{l.n.name(), tensor::scalar(n)}}, {l.sum, l.iterations});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(int_of(out[0]), n * (n + 1) / 2) << n;
    EXPECT_EQ(int_of(out[1]), n + 1) << n;
  }
}
