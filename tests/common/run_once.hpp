#pragma once

// One run of a graph built for the test on an engine, a bitwise comparison
// of tensors, and the check the cluster tests over real interfaces and
// over TLS share: a split graph and a loop across the two workers give
// what one process and TensorFlow give.

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/scope.hpp"
#include "common/golden.hpp"
#include "common/loop_cases.hpp"

namespace actorflow::test {

/// Builds a graph with `build`, which returns the name of its placeholder
/// and what to fetch, and runs it once on `e` with `x` fed.
template <class Build>
std::vector<core::tensor> run_once(actors::engine& e, Build build,
                                   const core::tensor& x) {
  graph::scope s{e.context().ops()};
  auto [feed, fetches] = build(s);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  auto st = sess.extend(s.graph_def());
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  std::vector<core::tensor> out;
  st = sess.run({{feed, x}}, fetches, {}, &out);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return out;
}

inline bool same_bits(const core::tensor& x, const core::tensor& y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape()
         && std::memcmp(x.raw_data(), y.raw_data(), x.bytes()) == 0;
}

/// A float tensor of `n` elements fed to task 0, doubled there, sent to
/// task 1, plus one there, fetched back; and the halving loop with its
/// body on task 1 (the predicate crosses once per iteration). On the
/// cluster `e` (tasks 0 and 1 of job worker): the same bits as in one
/// process, and TensorFlow's loop result.
inline void expect_split_graph_and_loop(actors::engine& e, int64_t n) {
  std::vector<float> values(static_cast<size_t>(n));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i % 1000) * 0.001f;
  auto x = core::tensor::from_vector<float>({n}, values);
  auto build = [n](const std::string& a, const std::string& b) {
    return [a, b, n](graph::scope& s) {
      auto x = graph::placeholder(s.sub("x").with_device(a),
                                  core::dtype::float32, {n});
      auto y = graph::mul(s.sub("y").with_device(a), x,
                          graph::constant(s.with_device(a), 2.0f));
      auto z = graph::add(s.sub("z").with_device(b), y,
                          graph::constant(s.with_device(b), 1.0f));
      auto count = graph::constant(s.sub("n").with_device(a), int64_t{20});
      auto loop = halving_loop(s.with_device(a), count, b);
      return std::make_pair(x.name(),
                            std::vector<std::string>{z.name(), loop[1].name()});
    };
  };
  auto far = run_once(
    e,
    build("/job:worker/task:0/device:cpu:0", "/job:worker/task:1/device:cpu:0"),
    x);
  actors::engine local;
  auto near = run_once(local, build("cpu:0", "cpu:1"), x);
  ASSERT_EQ(far.size(), 2u);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_TRUE(same_bits(far[0], near[0])) << far[0].debug_string();
  auto golden = load_golden("control_flow.txt");
  EXPECT_TRUE(same_bits(far[1], golden.at("halving_n20")))
    << far[1].debug_string();
}

} // namespace actorflow::test
