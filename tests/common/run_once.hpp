#pragma once

// One run of a graph built for the test on an engine, and a bitwise
// comparison of tensors: for the tests that check a cluster gives what one
// process gives.

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::test {

/// Builds a graph with `build`, which returns the name of its placeholder
/// and what to fetch, and runs it once on `e` with `x` fed.
template <class Build>
std::vector<core::tensor> run_once(actors::engine& e, Build build,
                                   const core::tensor& x) {
  graph::scope s{e.context().ops};
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

} // namespace actorflow::test
