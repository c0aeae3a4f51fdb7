#pragma once

// Loops that several suites build: the same graph on one device, on two,
// and over two processes.

#include <string>
#include <vector>

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"

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

/// Three iterations of v <- ReluGrad(MaxPoolGrad(h, y, y), h) + v - 0.5
/// with h = relu(v), y = max_pool(h) over overlapping 2x2 windows (stride
/// 1, SAME), v starting at `x` (float32, NHWC): the arithmetic pass's
/// rewrite inside a frame. Returns the loop's results (counter, v).
inline std::vector<graph::output> relu_pool_grad_loop(const graph::scope& s,
                                                      const graph::output& x) {
  return graph::while_loop(
    s,
    [&](const graph::scope& c, const std::vector<graph::output>& v) {
      return graph::less(c, v[0], graph::constant(c, 3));
    },
    [&](const graph::scope& b, const std::vector<graph::output>& v) {
      auto h = graph::relu(b, v[1]);
      auto y = graph::max_pool(b, h, 2, 2);
      auto back = b.add_node("MaxPoolGrad", "MaxPoolGrad", {h, y, y},
                             {{"T", core::dtype::float32},
                              {"ksize", std::vector<int64_t>{1, 2, 2, 1}},
                              {"strides", std::vector<int64_t>{1, 1, 1, 1}},
                              {"padding", std::string{"SAME"}}})[0];
      auto relu_grad = b.add_node("ReluGrad", "ReluGrad", {back, h},
                                  {{"T", core::dtype::float32}})[0];
      auto shifted = graph::sub(b, v[1], graph::constant(b, 0.5f));
      return std::vector<graph::output>{
        graph::add(b, v[0], graph::constant(b, 1)),
        graph::add(b, relu_grad, shifted)};
    },
    {graph::constant(s, 0), x});
}

} // namespace actorflow::test
