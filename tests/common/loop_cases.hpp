#pragma once

// Loops that several suites build: the same graph on one device, on two,
// and over two processes.

#include <string>
#include <vector>

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"

namespace actorflow::test {

/// The halving loop of tests/golden/control_flow.txt: n times
/// x <- x * 0.5 + (0 + 1 + 2) + 3, x starting at 1, the counter and the
/// condition in `s`, the body and an inner counted loop on `body_device`.
/// Returns the loop's results (counter, x).
inline std::vector<graph::output> halving_loop(const graph::scope& s,
                                               const graph::output& n,
                                               const std::string& body_device) {
  auto c = graph::constant(s.sub("c"), 3.0);
  return graph::while_loop(
    s,
    [&](const graph::scope& cs, const std::vector<graph::output>& v) {
      return graph::less(cs, v[0], n);
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto far = b.with_device(body_device);
      auto half = graph::mul(far, v[1], graph::constant(far, 0.5));
      auto inner = graph::while_loop(
        far,
        [&](const graph::scope& ic, const std::vector<graph::output>& w) {
          return graph::less(ic, w[0], graph::constant(ic, 3.0));
        },
        [&](const graph::scope& ib, const std::vector<graph::output>& w) {
          return std::vector<graph::output>{
            graph::add(ib, w[0], graph::constant(ib, 1.0)),
            graph::add(ib, w[1], w[0])};
        },
        {graph::constant(far, 0.0), half});
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1.0, core::dtype::int64)),
        graph::add(far, inner[1], c)};
    },
    {graph::constant(s, 0.0, core::dtype::int64), graph::constant(s, 1.0)});
}

} // namespace actorflow::test
