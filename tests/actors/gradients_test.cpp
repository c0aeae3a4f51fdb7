// Automatic differentiation: each gradient function against central finite
// differences in float64 (the maximum relative error is asserted), and the
// rules of graph::gradients (sums over consumers, StopGradient, integer
// paths, unused outputs, errors).

#include <cmath>
#include <functional>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/dispatch_ops.hpp"
#include "actorflow/graph/gradient_registry.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::shape;
using core::tensor;
using graph::output;
using graph::scope;

namespace {

using build_fn
  = std::function<output(const scope&, const std::vector<output>&)>;

/// Uniform float64 values in [lo, hi), the same for the same seed.
tensor uniform(shape sh, double lo, double hi, unsigned seed) {
  std::mt19937 gen{seed};
  std::uniform_real_distribution<double> dist{lo, hi};
  tensor t{dtype::float64, sh};
  for (int64_t i = 0; i < t.num_elements(); ++i)
    t.mutable_data<double>()[i] = dist(gen);
  return t;
}

/// One finite-difference check: the inputs, the function of them, and the
/// largest relative error allowed.
struct fd_case {
  std::vector<tensor> inputs;
  build_fn build;
  double tolerance = 1e-7;
  /// The step of the central differences.
  double h = 1e-6;
};

class gradients : public ::testing::Test {
protected:
  /// Checks d(sum(f(inputs) * w))/d(input) against central differences
  /// for every input, with w fixed random weights, and records the op as
  /// checked.
  void check(const std::string& op, const fd_case& c) {
    SCOPED_TRACE(op);
    checked.insert(op);
    scope s{e.context().ops()};
    std::vector<output> xs;
    for (size_t i = 0; i < c.inputs.size(); ++i)
      xs.push_back(graph::placeholder(s.sub("x" + std::to_string(i)),
                                      dtype::float64, c.inputs[i].shape()));
    auto y = c.build(s, xs);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    ASSERT_TRUE(y.shape().fully_defined()) << y.shape().to_string();
    auto w = graph::constant(s, uniform(y.shape(), 0.5, 1.5, 7));
    std::vector<int64_t> all;
    for (int i = 0; i < y.shape().rank(); ++i)
      all.push_back(i);
    auto loss = graph::reduce_sum(s.sub("loss"), graph::mul(s, y, w), all);
    auto grads = graph::gradients(s, {loss}, xs);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    std::vector<std::string> fetches;
    for (const auto& g : grads) {
      ASSERT_TRUE(g.has_value());
      fetches.push_back(g->name());
    }
    actors::session sess{e};
    auto extended = sess.extend(s.graph_def());
    ASSERT_TRUE(extended.is_ok()) << extended.to_string();
    auto feeds_of = [&](const std::vector<tensor>& values) {
      actors::feed_list feeds;
      for (size_t i = 0; i < xs.size(); ++i)
        feeds.push_back({xs[i].name(), values[i]});
      return feeds;
    };
    std::vector<tensor> analytic;
    auto st = sess.run(feeds_of(c.inputs), fetches, {}, &analytic);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    auto loss_at = [&](const std::vector<tensor>& values) {
      std::vector<tensor> out;
      auto st = sess.run(feeds_of(values), {loss.name()}, {}, &out);
      EXPECT_TRUE(st.is_ok()) << st.to_string();
      return st.is_ok() ? out[0].data<double>()[0] : 0.0;
    };
    const double h = c.h;
    for (size_t i = 0; i < xs.size(); ++i) {
      ASSERT_EQ(analytic[i].shape(), c.inputs[i].shape()) << "input " << i;
      double worst = 0;
      for (int64_t j = 0; j < c.inputs[i].num_elements(); ++j) {
        auto values = c.inputs;
        ASSERT_TRUE(c.inputs[i].deep_copy(&values[i]).is_ok());
        auto* v = values[i].mutable_data<double>() + j;
        auto x0 = *v;
        *v = x0 + h;
        auto up = loss_at(values);
        *v = x0 - h;
        auto down = loss_at(values);
        auto numeric = (up - down) / (2 * h);
        auto a = analytic[i].data<double>()[j];
        worst = std::max(worst, std::abs(a - numeric)
                                  / std::max(1.0, std::abs(numeric)));
      }
      EXPECT_LE(worst, c.tolerance) << "input " << i;
    }
  }

  actors::engine e;
  std::set<std::string> checked;
};

/// The first output of a node added by hand.
output head(std::vector<output> outs) {
  return outs.empty() ? output{} : outs.front();
}

tensor u(shape sh, unsigned seed = 1) {
  return uniform(std::move(sh), -2, 2, seed);
}

tensor positive(shape sh, unsigned seed = 1) {
  return uniform(std::move(sh), 0.5, 2, seed);
}

/// A unary op of one input.
template <class F>
fd_case unary(tensor x, F f) {
  return {{std::move(x)}, [f](const scope& s, const std::vector<output>& in) {
            return f(s, in[0]);
          }};
}

/// A binary op of two inputs.
template <class F>
fd_case binary(tensor x, tensor y, F f) {
  return {{std::move(x), std::move(y)},
          [f](const scope& s, const std::vector<output>& in) {
            return f(s, in[0], in[1]);
          }};
}

} // namespace

TEST_F(gradients, unary_math_ops_match_finite_differences) {
  auto x = u({2, 3});
  check("Neg", unary(x, graph::neg));
  check("Abs", unary(x, graph::abs));
  check("Square", unary(x, graph::square));
  check("Exp", unary(x, graph::exp));
  check("Log", unary(positive({2, 3}), graph::log));
  check("Log1p", unary(positive({2, 3}), graph::log1p));
  check("Sqrt", unary(positive({2, 3}), graph::sqrt));
  check("Rsqrt", unary(positive({2, 3}), graph::rsqrt));
  check("Tanh", unary(x, graph::tanh));
  check("Sigmoid", unary(x, graph::sigmoid));
  check("Erf", unary(x, graph::erf));
  check("Erfc", unary(x, graph::erfc));
  check("Identity", unary(x, graph::identity));
  check("CheckNumerics", unary(x, [](const scope& s, const output& v) {
          return graph::check_numerics(s, v, "checked");
        }));
  // float64 -> float32 -> float64 rounds to float32: larger steps and a
  // looser bound.
  auto cast = unary(x, [](const scope& s, const output& v) {
    return graph::cast(s, graph::cast(s, v, dtype::float32), dtype::float64);
  });
  cast.h = 1e-2;
  cast.tolerance = 1e-4;
  check("Cast", cast);
}

TEST_F(gradients, binary_math_ops_match_finite_differences_with_broadcasting) {
  // Same shapes, and y broadcast along rows and as a scalar.
  for (auto ys : {shape{2, 3}, shape{3}, shape{}}) {
    auto x = u({2, 3}, 1);
    auto y = u(ys, 2);
    check("Add", binary(x, y, graph::add));
    check("AddV2",
          binary(x, y, [](const scope& s, const output& a, const output& b) {
            return s.add_node("AddV2", "AddV2", {a, b}, {{"T", a.dtype()}})[0];
          }));
    check("Sub", binary(x, y, graph::sub));
    check("Mul", binary(x, y, graph::mul));
    check("Div", binary(x, positive(ys, 2), graph::div));
    check("RealDiv",
          binary(x, positive(ys, 2),
                 [](const scope& s, const output& a, const output& b) {
                   return s.add_node("RealDiv", "RealDiv", {a, b},
                                     {{"T", a.dtype()}})[0];
                 }));
    check("Maximum", binary(x, y, graph::maximum));
    check("Minimum", binary(x, y, graph::minimum));
    check("Pow", binary(positive({2, 3}), y, graph::pow));
    check("FloorMod", binary(positive({2, 3}, 3), uniform(ys, 0.3, 0.4, 4),
                             graph::floor_mod));
    check("Mod", binary(u({2, 3}, 3), uniform(ys, 0.3, 0.4, 4), graph::mod));
    check("DivNoNan",
          binary(x, positive(ys, 2),
                 [](const scope& s, const output& a, const output& b) {
                   return s.add_node("DivNoNan", "DivNoNan", {a, b},
                                     {{"T", a.dtype()}})[0];
                 }));
    check("SquaredDifference",
          binary(x, y, [](const scope& s, const output& a, const output& b) {
            return s.add_node("SquaredDifference", "SquaredDifference", {a, b},
                              {{"T", a.dtype()}})[0];
          }));
  }
  // x broadcast: [3, 1] against [1, 4].
  check("Mul", binary(u({3, 1}), u({1, 4}, 2), graph::mul));
  check("AddN", binary(u({2, 3}), u({2, 3}, 2),
                       [](const scope& s, const output& a, const output& b) {
                         return graph::add_n(s, {a, b, a});
                       }));
  check("Select",
        binary(u({2, 3}), u({2, 3}, 2),
               [](const scope& s, const output& a, const output& b) {
                 auto c = graph::constant(
                   s, tensor::from_vector<bool>(
                        {2, 3}, {true, false, false, true, true, false}));
                 return graph::select(s, c, a, b);
               }));
}

TEST_F(gradients, reductions_match_finite_differences) {
  auto x = u({2, 3, 4});
  for (std::vector<int64_t> axes :
       {std::vector<int64_t>{1}, {0, 2}, {-1}, {0, 1, 2}})
    for (bool keep : {false, true}) {
      check("Sum", unary(x, [&](const scope& s, const output& v) {
              return graph::reduce_sum(s, v, axes, keep);
            }));
      check("Mean", unary(x, [&](const scope& s, const output& v) {
              return graph::reduce_mean(s, v, axes, keep);
            }));
      check("Max", unary(x, [&](const scope& s, const output& v) {
              return graph::reduce_max(s, v, axes, keep);
            }));
      check("Min", unary(x, [&](const scope& s, const output& v) {
              return graph::reduce_min(s, v, axes, keep);
            }));
      check("Prod", unary(x, [&](const scope& s, const output& v) {
              return graph::reduce_prod(s, v, axes, keep);
            }));
    }
}

TEST_F(gradients, prod_is_exact_at_zeros) {
  // Rows with no zero, one zero and two zeros: the product is linear in
  // each element, so central differences are exact there too.
  auto x = tensor::from_vector<double>(
    {3, 4}, {1.5, -2, 0.5, 3, 0, 2, -1.5, 0.75, 0, 1.25, 0, -2});
  check("Prod", unary(x, [](const scope& s, const output& v) {
          return graph::reduce_prod(s, v, {1}, false);
        }));
}

TEST_F(gradients, a_reduction_of_a_partly_known_shape_uses_the_run_time_shape) {
  // The placeholder's batch dimension is unknown at build time.
  scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, shape{-1, 3});
  auto loss = graph::reduce_mean(s, graph::square(s, x), {0, 1});
  auto g = graph::gradients(s, {loss}, {x});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto v = u({4, 3});
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({{x.name(), v}}, {g[0]->name()}, {}, &out).is_ok());
  tensor want{dtype::float64, {4, 3}};
  for (int i = 0; i < 12; ++i)
    want.mutable_data<double>()[i] = 2 * v.data<double>()[i] / 12;
  test::expect_all_near(out[0], want, 1e-15, "d mean(x^2) / dx");
}

TEST_F(gradients, matrix_ops_match_finite_differences) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      check("MatMul",
            binary(u(ta ? shape{4, 2} : shape{2, 4}),
                   u(tb ? shape{3, 4} : shape{4, 3}, 2),
                   [=](const scope& s, const output& a, const output& b) {
                     return graph::matmul(s, a, b, {ta, tb});
                   }));
  for (bool ax : {false, true})
    for (bool ay : {false, true})
      check("BatchMatMulV2",
            binary(u(ax ? shape{2, 4, 2} : shape{2, 2, 4}),
                   u(ay ? shape{3, 4} : shape{4, 3}, 2),
                   [=](const scope& s, const output& a, const output& b) {
                     return graph::batch_matmul(s, a, b, ax, ay);
                   }));
  // Well-conditioned matrices: the identity plus small values.
  auto m = u({2, 3, 3});
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      m.mutable_data<double>()[b * 9 + i * 4] += 4;
  for (bool adjoint : {false, true})
    check("MatrixInverse", unary(m, [=](const scope& s, const output& v) {
            return graph::matrix_inverse(s, v, adjoint);
          }));
  check("MatrixDeterminant", unary(m, graph::matrix_determinant));
}

TEST_F(gradients, array_ops_match_finite_differences) {
  auto x = u({2, 3, 4});
  check("Reshape", unary(x, [](const scope& s, const output& v) {
          return graph::reshape(s, v, std::vector<int64_t>{4, -1});
        }));
  check("ExpandDims", unary(x, [](const scope& s, const output& v) {
          return graph::expand_dims(s, v, 1);
        }));
  check("Squeeze", unary(u({2, 1, 3}), [](const scope& s, const output& v) {
          return graph::squeeze(s, v);
        }));
  check("Transpose", unary(x, [](const scope& s, const output& v) {
          return graph::transpose(s, v, {2, 0, 1});
        }));
  check("ConcatV2",
        binary(x, u({2, 2, 4}, 2),
               [](const scope& s, const output& a, const output& b) {
                 return graph::concat(s, {a, b, a}, 1);
               }));
  check("Split", unary(x, [](const scope& s, const output& v) {
          auto parts = graph::split(s, v, 2, 2);
          // Only part 1 is used: part 0 gets a zero gradient.
          return graph::mul(s, parts[1], parts[1]);
        }));
  check("SplitV", unary(x, [](const scope& s, const output& v) {
          auto parts = graph::split_v(s, v, {1, 3}, -1);
          return graph::reduce_sum(s, parts[0], {2}, false)
                 + graph::reduce_sum(s, graph::square(s, parts[1]), {2}, false);
        }));
  check("Pack", binary(u({3, 4}), u({3, 4}, 2),
                       [](const scope& s, const output& a, const output& b) {
                         return graph::stack(s, {a, b}, 1);
                       }));
  check("Unpack", unary(x, [](const scope& s, const output& v) {
          auto parts = graph::unstack(s, v, 3, 1);
          return graph::mul(s, parts[0], parts[2]);
        }));
  check("Slice", unary(x, [](const scope& s, const output& v) {
          return graph::slice(s, v, {0, 1, 1}, {2, -1, 2});
        }));
  check("Pad", unary(x, [](const scope& s, const output& v) {
          return graph::pad(s, v, {{1, 0}, {0, 2}, {1, 1}});
        }));
  check("Tile", unary(u({2, 3}), [](const scope& s, const output& v) {
          return graph::tile(s, v, {2, 1});
        }));
  check("ReverseV2", unary(x, [](const scope& s, const output& v) {
          return graph::reverse(s, v, {0, 2});
        }));
  check("ReverseSequence", unary(x, [](const scope& s, const output& v) {
          auto lengths
            = graph::constant(s, tensor::from_vector<int64_t>({2}, {1, 3}));
          return s.add_node("ReverseSequence", "ReverseSequence", {v, lengths},
                            {{"T", dtype::float64},
                             {"Tlen", dtype::int64},
                             {"seq_dim", int64_t{2}},
                             {"batch_dim", int64_t{0}}})[0];
        }));
  check("Fill", unary(u({}), [](const scope& s, const output& v) {
          return graph::fill(s, {2, 3}, v);
        }));
  for (auto o : {graph::strided_slice_options{},
                 graph::strided_slice_options{1, 0, 0, 0, 2},
                 graph::strided_slice_options{0, 2, 0, 1, 0}})
    check(
      "StridedSlice", unary(x, [o](const scope& s, const output& v) {
        return graph::strided_slice(s, v, {0, 2, 3}, {2, 0, 0}, {1, -1, -2}, o);
      }));
  check("GatherV2", unary(u({4, 3}), [](const scope& s, const output& v) {
          // Row 1 twice: its gradients add up.
          auto idx = graph::constant(
            s, tensor::from_vector<int32_t>({2, 2}, {1, 3, 1, 0}));
          return graph::gather(s, v, idx);
        }));
}

TEST_F(gradients, dispatch_ops_match_finite_differences) {
  auto int32s
    = [](const scope& s, std::vector<int64_t> dims, std::vector<int32_t> v) {
        return graph::constant(
          s, tensor::from_vector<int32_t>(core::shape{std::move(dims)}, v));
      };
  check("DynamicPartition",
        unary(u({2, 3, 2}), [&](const scope& s, const output& v) {
          // Four partitions, one of them empty, joined to check them all.
          auto parts = graph::dynamic_partition(
            s, v, int32s(s, {2, 3}, {2, 0, 2, 1, 0, 2}), 4);
          return graph::concat(s, parts, 0);
        }));
  auto stitch = [&](const char* op) {
    return binary(
      u({3, 2}), u({1, 2, 2}, 2),
      [&, op](const scope& s, const output& a, const output& b) {
        return head(s.add_node(
          op, op, {int32s(s, {3}, {0, 4, 2}), int32s(s, {1, 2}, {1, 3}), a, b},
          {{"N", int64_t{2}}, {"T", a.dtype()}}));
      });
  };
  check("DynamicStitch", stitch("DynamicStitch"));
  check("ParallelDynamicStitch", stitch("ParallelDynamicStitch"));
  // Rows 0 and 2 share a segment, row 3 is dropped, segment 3 is empty.
  auto segments = [&](auto fn, tensor data) {
    return unary(std::move(data), [&, fn](const scope& s, const output& v) {
      return fn(s, v, int32s(s, {6}, {0, 2, 0, -1, 1, 2}),
                graph::constant(s, int32_t{4}));
    });
  };
  check("UnsortedSegmentSum", segments(graph::unsorted_segment_sum, u({6, 2})));
  check("UnsortedSegmentMax", segments(graph::unsorted_segment_max, u({6, 2})));
  check("UnsortedSegmentMin", segments(graph::unsorted_segment_min, u({6, 2})));
  check("UnsortedSegmentProd",
        segments(graph::unsorted_segment_prod, u({6, 2})));
  // Zeros: one in segment 2's first column (its gradient is the others'
  // product), two in segment 0's second (all its gradients are 0).
  check(
    "UnsortedSegmentProd",
    segments(graph::unsorted_segment_prod,
             tensor::from_vector<double>({6, 2}, {0.5, 0, 0, 1.5, -1.25, 0, 2,
                                                  2, 1.5, -0.75, 0.75, 1.25})));
  auto sorted = int32s;
  check("SegmentSum", unary(u({5, 2}), [&](const scope& s, const output& v) {
          return graph::segment_sum(s, v, sorted(s, {5}, {0, 0, 2, 2, 3}));
        }));
  check("SegmentMean", unary(u({5, 2}), [&](const scope& s, const output& v) {
          return graph::segment_mean(s, v, sorted(s, {5}, {0, 0, 2, 2, 3}));
        }));
  // Coordinate [0, 1] twice: its gradients add up.
  auto coords = [&](const scope& s) {
    return int32s(s, {3, 2}, {0, 1, 2, 3, 0, 1});
  };
  check("GatherNd", unary(u({3, 4, 2}), [&](const scope& s, const output& v) {
          return graph::gather_nd(s, v, coords(s));
        }));
  check("ScatterNd", unary(u({3, 2}), [&](const scope& s, const output& v) {
          return graph::scatter_nd(s, coords(s), v, int32s(s, {3}, {3, 4, 2}));
        }));
  auto rows = [&](const scope& s) { return int32s(s, {2, 1}, {2, 0}); };
  check("TensorScatterUpdate",
        binary(u({3, 4}), u({2, 4}, 2),
               [&](const scope& s, const output& t, const output& v) {
                 return graph::tensor_scatter_update(s, t, rows(s), v);
               }));
  check("TensorScatterAdd",
        binary(u({3, 4}), u({2, 4}, 2),
               [&](const scope& s, const output& t, const output& v) {
                 return graph::tensor_scatter_add(s, t, rows(s), v);
               }));
  check("BroadcastTo", unary(u({3, 1}), [&](const scope& s, const output& v) {
          return graph::broadcast_to(s, v, int32s(s, {3}, {2, 3, 4}));
        }));
  check("SelectV2",
        binary(u({2, 3}), u({3}, 2),
               [](const scope& s, const output& t, const output& e) {
                 auto c = graph::constant(
                   s, tensor::from_vector<bool>({2, 1}, {true, false}));
                 return graph::select_v2(s, c, t, e);
               }));
  for (bool exclusive : {false, true})
    for (bool reverse : {false, true}) {
      check("Cumsum", unary(u({2, 3, 2}), [=](const scope& s, const output& v) {
              return graph::cumsum(s, v, 1, exclusive, reverse);
            }));
      check("Cumprod",
            unary(positive({2, 3, 2}), [=](const scope& s, const output& v) {
              return graph::cumprod(s, v, -2, exclusive, reverse);
            }));
    }
}

TEST_F(gradients, nn_ops_match_finite_differences) {
  auto x = u({2, 5});
  check("Relu", unary(x, graph::relu));
  check("Relu6", unary(uniform({2, 5}, -3, 9, 3), graph::relu6));
  check("Elu", unary(x, graph::elu));
  check("Selu", unary(x, graph::selu));
  check("Softplus", unary(x, graph::softplus));
  check("Softsign", unary(x, [](const scope& s, const output& v) {
          return s.add_node("Softsign", "Softsign", {v},
                            {{"T", dtype::float64}})[0];
        }));
  check("LeakyRelu", unary(x, [](const scope& s, const output& v) {
          return s.add_node("LeakyRelu", "LeakyRelu", {v},
                            {{"T", dtype::float64}, {"alpha", 0.3}})[0];
        }));
  check("Softmax", unary(x, graph::softmax));
  check("LogSoftmax", unary(x, graph::log_softmax));
  check("L2Loss", unary(x, graph::l2_loss));
  check("TopKV2", unary(x, [](const scope& s, const output& v) {
          return graph::top_k(s, v, 3).first;
        }));
  check("BiasAdd", binary(u({2, 3, 4}), u({4}, 2), graph::bias_add));
  auto labels = tensor::from_vector<double>(
    {2, 5}, {0.1, 0.2, 0.3, 0.4, 0.0, 0.5, 0.0, 0.0, 0.25, 0.25});
  check("SoftmaxCrossEntropyWithLogits",
        binary(x, labels, [](const scope& s, const output& l, const output& p) {
          return graph::softmax_cross_entropy_with_logits(s, l, p).first;
        }));
  check(
    "SparseSoftmaxCrossEntropyWithLogits",
    unary(x, [](const scope& s, const output& l) {
      auto idx = graph::constant(s, tensor::from_vector<int64_t>({2}, {3, 0}));
      return graph::sparse_softmax_cross_entropy_with_logits(s, l, idx).first;
    }));
  for (const char* padding : {"SAME", "VALID"}) {
    graph::window_options o;
    o.padding = padding;
    o.stride_h = 2;
    check("Conv2D",
          binary(u({2, 5, 4, 3}), u({3, 2, 3, 2}, 2),
                 [=](const scope& s, const output& in, const output& f) {
                   return graph::conv2d(s, in, f, o);
                 }));
    // Grouped: 4 input channels, a filter of 2, two groups of 3 outputs.
    check("Conv2D",
          binary(u({2, 5, 4, 4}), u({3, 2, 2, 6}, 2),
                 [=](const scope& s, const output& in, const output& f) {
                   return graph::conv2d(s, in, f, o);
                 }));
    check("MaxPool",
          unary(u({2, 5, 4, 3}), [=](const scope& s, const output& in) {
            return graph::max_pool(s, in, 2, 3, o);
          }));
    check("AvgPool",
          unary(u({2, 5, 4, 3}), [=](const scope& s, const output& in) {
            return graph::avg_pool(s, in, 2, 3, o);
          }));
  }
  for (const char* padding : {"SAME", "VALID"}) {
    // A multiplier of 2 and strides 2 x 1: every index of the op used.
    core::attr_map attrs{{"T", dtype::float64},
                         {"strides", std::vector<int64_t>{1, 2, 1, 1}},
                         {"padding", std::string{padding}}};
    check("DepthwiseConv2dNative",
          binary(u({2, 5, 4, 3}), u({3, 2, 3, 2}, 2),
                 [=](const scope& s, const output& in, const output& f) {
                   return s.add_node("DepthwiseConv2dNative",
                                     "DepthwiseConv2dNative", {in, f},
                                     attrs)[0];
                 }));
  }
  for (const char* format : {"NHWC", "NCHW"})
    for (bool training : {true, false})
      check("FusedBatchNormV3",
            {{u({2, 3, 2, 3}), positive({3}, 2), u({3}, 3)},
             [=](const scope& s, const std::vector<output>& in) {
               auto mean = graph::constant(s, u({3}, 4));
               auto var = graph::constant(s, positive({3}, 5));
               // NCHW: the channels (3) second.
               auto x = std::string{format} == "NHWC"
                          ? in[0]
                          : graph::transpose(s, in[0], {0, 3, 1, 2});
               return s.add_node("FusedBatchNormV3", "FusedBatchNormV3",
                                 {x, in[1], in[2], mean, var},
                                 {{"T", dtype::float64},
                                  {"U", dtype::float64},
                                  {"epsilon", 0.001},
                                  {"data_format", std::string{format}},
                                  {"is_training", training}})[0];
             }});
  for (const char* padding : {"SAME", "VALID"}) {
    core::attr_map attrs{{"T", dtype::float64},
                         {"strides", std::vector<int64_t>{1, 1, 2, 1, 1}},
                         {"padding", std::string{padding}}};
    check("Conv3D",
          binary(u({2, 3, 4, 3, 2}), u({2, 2, 2, 2, 3}, 2),
                 [=](const scope& s, const output& in, const output& f) {
                   return s.add_node("Conv3D", "Conv3D", {in, f}, attrs)[0];
                 }));
    attrs["ksize"] = std::vector<int64_t>{1, 2, 2, 2, 1};
    for (const char* op : {"MaxPool3D", "AvgPool3D"})
      check(op, unary(u({2, 3, 4, 3, 2}), [=](const scope& s, const output& v) {
              return s.add_node(op, op, {v}, attrs)[0];
            }));
  }
  for (const char* op : {"SpaceToBatchND", "BatchToSpaceND"})
    // [4, 4, 6, 2] padded to [4, 4, 9, 2] into [24, 2, 3, 2], and
    // [12, 2, 3, 2] back to [2, 4, 9, 2] cropped to [2, 2, 6, 2].
    check(op, unary(u(op[0] == 'S' ? shape{4, 4, 6, 2} : shape{12, 2, 3, 2}),
                    [op](const scope& s, const output& v) {
                      auto block = graph::constant(
                        s, tensor::from_vector<int32_t>({2}, {2, 3}));
                      auto edges = graph::constant(
                        s, tensor::from_vector<int32_t>({2, 2}, {0, 2, 0, 3}));
                      return s.add_node(op, op, {v, block, edges},
                                        {{"T", dtype::float64},
                                         {"Tblock_shape", dtype::int32},
                                         {op[0] == 'S' ? "Tpaddings" : "Tcrops",
                                          dtype::int32}})[0];
                    }));
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"})
    for (bool half : {false, true}) {
      // Both are linear in the image: a large step is exact but for
      // bilinear's float32 output (TensorFlow's dtype for it).
      fd_case c = unary(u({2, 3, 4, 2}), [=](const scope& s, const output& v) {
        auto size
          = graph::constant(s, tensor::from_vector<int32_t>({2}, {5, 7}));
        auto y = s.add_node(
          op, op, {v, size},
          {{"T", dtype::float64}, {"half_pixel_centers", half}})[0];
        return graph::cast(s, y, dtype::float64);
      });
      c.h = 1.0 / 64;
      c.tolerance = 1e-5;
      check(op, c);
    }
  for (bool training : {true, false}) {
    // Mean and variance (used in inference only) get no gradient, as in
    // TensorFlow: they are constants here.
    check("FusedBatchNorm",
          {{u({2, 3, 2, 3}), positive({3}, 2), u({3}, 3)},
           [=](const scope& s, const std::vector<output>& in) {
             auto mean = graph::constant(s, u({3}, 4));
             auto var = graph::constant(s, positive({3}, 5));
             return graph::fused_batch_norm(s, in[0], in[1], in[2], mean, var,
                                            training)
               .y;
           }});
  }
}

TEST_F(gradients, einsum_matches_finite_differences) {
  struct form {
    const char* equation;
    std::vector<shape> shapes;
  };
  // Keras' attention and projections, a broadcast ellipsis, a label only
  // one operand has (summed, then broadcast back), one operand.
  for (const auto& f :
       std::vector<form>{{"abc,cde->abde", {{2, 3, 4}, {4, 2, 3}}},
                         {"aecd,abcd->acbe", {{2, 3, 2, 2}, {2, 4, 2, 2}}},
                         {"...ij,...jk->...ik", {{2, 1, 3, 2}, {3, 2, 2}}},
                         {"ijk,jl->il", {{2, 3, 2}, {3, 4}}},
                         {"ijk->kj", {{2, 3, 4}}}}) {
    SCOPED_TRACE(f.equation);
    fd_case c;
    for (size_t i = 0; i < f.shapes.size(); ++i)
      c.inputs.push_back(u(f.shapes[i], static_cast<unsigned>(i + 1)));
    std::string equation = f.equation;
    c.build = [equation](const scope& s, const std::vector<output>& in) {
      return s.add_node("Einsum", "Einsum", in,
                        {{"equation", equation},
                         {"N", static_cast<int64_t>(in.size())},
                         {"T", dtype::float64}})[0];
    };
    check("Einsum", c);
  }
}

TEST_F(gradients, identities_of_tensorflows_graphs_pass_the_gradient_on) {
  check("PlaceholderWithDefault",
        unary(u({2, 3}), [](const scope& s, const output& x) {
          return s.add_node(
            "PlaceholderWithDefault", "PlaceholderWithDefault", {x},
            {{"dtype", dtype::float64}, {"shape", shape{2, 3}}})[0];
        }));
  check("IdentityN",
        binary(u({2, 3}), u({3}, 2),
               [](const scope& s, const output& a, const output& b) {
                 auto outs = s.add_node(
                   "IdentityN", "IdentityN", {a, b},
                   {{"T", std::vector<dtype>{dtype::float64, dtype::float64}}});
                 return graph::mul(s, outs[0], graph::exp(s, outs[1]));
               }));
}

TEST_F(gradients, a_cond_sends_the_gradient_into_the_branch_it_took) {
  // y = pred ? x * x * z : exp(x) + z, with x and z from outside the cond
  // and x also used after it; and a cond nested in the true branch.
  for (bool taken : {true, false}) {
    SCOPED_TRACE(taken);
    auto build = [taken](const scope& s, const std::vector<output>& in) {
      const auto& x = in[0];
      const auto& z = in[1];
      auto pred = graph::constant(s, tensor::scalar(taken));
      auto inner = graph::constant(s, tensor::scalar(!taken));
      auto y = graph::cond(
        s, pred,
        [&](const scope& t) {
          auto sq = graph::mul(t, graph::mul(t, x, x), z);
          // Nested: !taken is false here, so its else branch runs.
          return graph::cond(
            t, inner, [&](const scope& u) { return std::vector<output>{x}; },
            [&](const scope& u) {
              return std::vector<output>{graph::tanh(u, sq)};
            });
        },
        [&](const scope& t) {
          return std::vector<output>{graph::add(t, graph::exp(t, x), z)};
        });
      return graph::mul(s, y[0], x);
    };
    check("Switch", {{u({2, 3}), u({2, 3}, 2)}, build});
    // z broadcast inside the branches.
    check("Merge", {{u({2, 3}, 3), u({3}, 4)}, build});
  }
}

TEST_F(gradients, a_while_loop_replays_its_iterations_in_reverse) {
  // v <- tanh(v * c + v0) four times (i counts), with c and v0 captured
  // from outside: the gradients of v0 (initial value and loop constant)
  // and c (a loop constant) sum over the iterations.
  for (int64_t parallel : {1, 10}) {
    SCOPED_TRACE(parallel);
    auto build = [parallel](const scope& s, const std::vector<output>& in) {
      const auto& v0 = in[0];
      const auto& c = in[1];
      graph::while_options o;
      o.parallel_iterations = parallel;
      auto outs = graph::while_loop(
        s,
        [](const scope& t, const std::vector<output>& v) {
          return graph::less(t, v[0], graph::constant(t, 4.0, dtype::int64));
        },
        [&](const scope& b, const std::vector<output>& v) {
          auto next = graph::tanh(b, graph::add(b, graph::mul(b, v[1], c), v0));
          return std::vector<output>{
            graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)), next};
        },
        {graph::constant(s, 0.0, dtype::int64), v0}, o);
      return graph::mul(s, outs[1], outs[1]);
    };
    check("Exit", {{u({2, 3}), u({3}, 2)}, build});
  }
}

TEST_F(gradients, nested_loops_and_a_loop_in_a_cond_replay_in_reverse) {
  // Outer: three times v <- inner(v) * c; inner: twice v <- tanh(v + v0).
  auto nested = [](const scope& s, const std::vector<output>& in) {
    const auto& v0 = in[0];
    const auto& c = in[1];
    auto counter = [](double n) {
      return [n](const scope& t, const std::vector<output>& v) {
        return graph::less(t, v[0], graph::constant(t, n, dtype::int64));
      };
    };
    auto step = [](const scope& b, const output& i) {
      return graph::add(b, i, graph::constant(b, 1.0, dtype::int64));
    };
    auto outs = graph::while_loop(
      s, counter(3),
      [&](const scope& b, const std::vector<output>& v) {
        auto inner = graph::while_loop(
          b, counter(2),
          [&](const scope& ib, const std::vector<output>& w) {
            return std::vector<output>{
              step(ib, w[0]), graph::tanh(ib, graph::add(ib, w[1], v0))};
          },
          {graph::constant(b, 0.0, dtype::int64), v[1]});
        return std::vector<output>{step(b, v[0]), graph::mul(b, inner[1], c)};
      },
      {graph::constant(s, 0.0, dtype::int64), v0});
    return outs[1];
  };
  check("Exit", {{u({2, 3}), u({3}, 2)}, nested});
  // A loop in each branch of a cond.
  for (bool taken : {true, false}) {
    SCOPED_TRACE(taken);
    check(
      "Exit",
      {{u({2, 3}), u({3}, 2)},
       [&](const scope& s, const std::vector<output>& in) {
         auto pred = graph::constant(s, tensor::scalar(taken));
         return graph::cond(
           s, pred,
           [&](const scope& t) { return std::vector<output>{nested(t, in)}; },
           [&](const scope& f) {
             return std::vector<output>{graph::mul(f, in[0], in[1])};
           })[0];
       }});
  }
}

TEST_F(gradients, a_cond_in_a_loop_takes_each_iterations_branch_back) {
  // Five times: v <- (the iteration is even) ? v * c : tanh(v) + c, so the
  // branches alternate; values read inside a branch are popped only in
  // the iterations that took it.
  auto build = [](const scope& s, const std::vector<output>& in) {
    const auto& c = in[1];
    auto outs = graph::while_loop(
      s,
      [](const scope& t, const std::vector<output>& v) {
        return graph::less(t, v[0], graph::constant(t, 5.0, dtype::int64));
      },
      [&](const scope& b, const std::vector<output>& v) {
        auto even = graph::equal(
          b, graph::floor_mod(b, v[0], graph::constant(b, 2.0, dtype::int64)),
          graph::constant(b, 0.0, dtype::int64));
        auto next = graph::cond(
          b, even,
          [&](const scope& t) {
            return std::vector<output>{graph::mul(t, v[1], c)};
          },
          [&](const scope& f) {
            return std::vector<output>{graph::add(f, graph::tanh(f, v[1]), c)};
          });
        return std::vector<output>{
          graph::add(b, v[0], graph::constant(b, 1.0, dtype::int64)), next[0]};
      },
      {graph::constant(s, 0.0, dtype::int64), in[0]});
    return graph::mul(s, outs[1], outs[1]);
  };
  check("Exit", {{u({2, 3}), u({3}, 2)}, build});
}

TEST_F(gradients, dropout_scales_the_gradient_by_its_mask) {
  scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {4, 50});
  auto y = graph::dropout(s, x, 0.25, {5, 6});
  auto g = graph::gradients(s, {y}, {x});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto v = positive({4, 50});
  std::vector<tensor> out;
  ASSERT_TRUE(
    sess.run({{x.name(), v}}, {y.name(), g[0]->name()}, {}, &out).is_ok());
  int dropped = 0;
  for (int i = 0; i < 200; ++i) {
    auto kept = out[0].data<double>()[i] != 0;
    dropped += kept ? 0 : 1;
    EXPECT_DOUBLE_EQ(out[1].data<double>()[i], kept ? 1 / 0.75 : 0.0) << i;
  }
  EXPECT_GT(dropped, 20);
  EXPECT_LT(dropped, 80);
}

TEST_F(gradients, every_gradient_function_is_checked) {
  // The ops checked against finite differences above, and those registered
  // as not differentiable; a new gradient function must join one list.
  std::set<std::string> finite_differences{
    "Neg",
    "Abs",
    "Square",
    "Exp",
    "Log",
    "Log1p",
    "Sqrt",
    "Rsqrt",
    "Tanh",
    "Sigmoid",
    "Identity",
    "CheckNumerics",
    "Cast",
    "Add",
    "AddV2",
    "Sub",
    "Mul",
    "Div",
    "RealDiv",
    "Maximum",
    "Minimum",
    "Pow",
    "FloorMod",
    "AddN",
    "Select",
    "Sum",
    "Mean",
    "Max",
    "Min",
    "MatMul",
    "BatchMatMulV2",
    "MatrixInverse",
    "MatrixDeterminant",
    "Reshape",
    "ExpandDims",
    "Squeeze",
    "Transpose",
    "ConcatV2",
    "Split",
    "SplitV",
    "Pack",
    "Unpack",
    "Slice",
    "Pad",
    "Tile",
    "ReverseV2",
    "ReverseSequence",
    "Fill",
    "GatherV2",
    "Relu",
    "Relu6",
    "Elu",
    "Selu",
    "Softplus",
    "Softmax",
    "LogSoftmax",
    "L2Loss",
    "BiasAdd",
    "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits",
    "Conv2D",
    "MaxPool",
    "AvgPool",
    "FusedBatchNorm",
    "FusedBatchNormV3",
    "DepthwiseConv2dNative",
    "SquaredDifference",
    "PlaceholderWithDefault",
    "IdentityN",
    "Einsum",
    "ResizeBilinear",
    "ResizeNearestNeighbor",
    "SpaceToBatchND",
    "BatchToSpaceND",
    "Conv3D",
    "MaxPool3D",
    "AvgPool3D",
    "Softsign",
    "LeakyRelu",
    "DivNoNan",
    "Switch",
    "Merge",
    "Exit",
    "StridedSlice",
    "Mod",
    "Prod",
    "TopKV2",
    "DynamicPartition",
    "DynamicStitch",
    "ParallelDynamicStitch",
    "UnsortedSegmentSum",
    "UnsortedSegmentMax",
    "UnsortedSegmentMin",
    "UnsortedSegmentProd",
    "SegmentSum",
    "SegmentMean",
    "GatherNd",
    "ScatterNd",
    "TensorScatterUpdate",
    "TensorScatterAdd",
    "BroadcastTo",
    "SelectV2",
    "Cumsum",
    "Cumprod",
    "Erf",
    "Erfc"};
  // The same functions as checked ops (the older forms of an op, RefSwitch),
  // Dropout (its own test), and the ops with no gradient.
  std::set<std::string> otherwise{
    "RefSwitch", "TopK", "BatchMatMul", "Concat", "Gather", "PadV2", "Reverse",
    "Dropout", "Sign", "Floor", "Ceil", "Round", "FloorDiv", "StopGradient",
    "ZerosLike", "OnesLike", "OneHot", "Shape", "Size", "Rank", "Range",
    "Where",
    // tensor_array_test, against central differences
    "TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayGatherV3",
    "TensorArrayScatterV3", "TensorArrayConcatV3", "TensorArraySplitV3",
    "TensorArrayV3", "TensorArrayGradV3", "TensorArrayGradWithShape",
    "TensorArraySizeV3", "TensorArrayCloseV3",
    // list_gradients_test, against central differences
    "TensorListFromTensor", "TensorListStack", "TensorListGetItem",
    "TensorListSetItem", "TensorListPushBack", "TensorListPopBack",
    "TensorListGather", "TensorListScatter", "TensorListScatterV2",
    "TensorListScatterIntoExistingList", "TensorListConcatV2",
    "TensorListSplit", "TensorListResize"};
  scope s{e.context().ops()};
  for (const auto& op : s.gradients().names())
    EXPECT_TRUE(finite_differences.count(op) + otherwise.count(op) == 1)
      << op << " has a gradient function but no check";
}

TEST_F(gradients, fan_out_is_summed_and_grad_ys_weight_each_y) {
  // y1 = x * x + 3x (x used three times), y2 = sum(x); grad_ys 2 and 10.
  scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {3});
  auto y1
    = graph::add(s, graph::mul(s, x, x),
                 graph::mul(s, graph::constant(s, 3.0, dtype::float64), x));
  auto y2 = graph::reduce_sum(s, x, {0});
  auto two = graph::fill(s, {3}, graph::constant(s, 2.0, dtype::float64));
  auto ten = graph::constant(s, 10.0, dtype::float64);
  auto g = graph::gradients(s, {y1, y2}, {x}, {two, ten});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  auto v = tensor::from_vector<double>({3}, {1, -2, 0.5});
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({{x.name(), v}}, {g[0]->name()}, {}, &out).is_ok());
  // 2 * (2x + 3) + 10.
  test::expect_all_near(out[0], tensor::from_vector<double>({3}, {20, 8, 18}),
                        1e-15, "summed gradient");
}

TEST_F(gradients, stop_gradient_integer_paths_and_unconnected_xs_get_none) {
  scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {3});
  auto z = graph::placeholder(s.sub("z"), dtype::float64, {3});
  auto unused = graph::placeholder(s.sub("unused"), dtype::float64, {3});
  auto frozen = graph::stop_gradient(s, z);
  // x reaches y only through an int32 cast; z only through StopGradient.
  auto through_int
    = graph::cast(s, graph::cast(s, x, dtype::int32), dtype::float64);
  auto y = graph::reduce_sum(s, graph::mul(s, through_int, frozen), {0});
  auto g = graph::gradients(s, {y}, {x, z, unused, frozen});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_FALSE(g[0].has_value());
  EXPECT_FALSE(g[1].has_value());
  EXPECT_FALSE(g[2].has_value());
  // The StopGradient's output itself is differentiable.
  ASSERT_TRUE(g[3].has_value());
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  auto v = tensor::from_vector<double>({3}, {1.7, -2.2, 3.9});
  ASSERT_TRUE(
    sess.run({{x.name(), v}, {z.name(), v}}, {g[3]->name()}, {}, &out).is_ok());
  test::expect_all_near(out[0], tensor::from_vector<double>({3}, {1, -2, 3}), 0,
                        "d y / d frozen = int(x)");
}

TEST_F(gradients, an_op_without_a_gradient_function_names_the_node_and_op) {
  // ReluGrad (a gradient op) has no gradient function: no second order.
  auto features = tensor::from_vector<double>({3}, {1.5, -2, 0.5});
  auto build = [&](const scope& s, output* x) {
    *x = graph::placeholder(s.sub("x"), dtype::float64, {3});
    return head(s.add_node("ReluGrad", "picked",
                           {*x, graph::constant(s, features)},
                           {{"T", dtype::float64}}));
  };
  scope s{e.context().ops()};
  output x;
  auto y = build(s, &x);
  auto g = graph::gradients(s, {y}, {x});
  EXPECT_FALSE(g[0].has_value());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), core::errc::not_found);
  EXPECT_EQ(s.status().op(), "ReluGrad");
  EXPECT_EQ(s.status().node(), y.node_name());
  // A user-registered function makes it differentiable.
  scope t{e.context().ops()};
  output x2;
  auto y2 = build(t, &x2);
  t.gradients().add("ReluGrad", [](const scope& s, const graph::gradient_op& op,
                                   const std::vector<output>& g,
                                   std::vector<output>* in) {
    (*in)[0] = head(s.add_node("ReluGrad", "ReluGrad", {g[0], op.inputs[1]},
                               {{"T", g[0].dtype()}}));
    return core::status::ok();
  });
  auto g2 = graph::gradients(t, {y2}, {x2});
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(t.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(
    sess.run({{x2.name(), u({3})}}, {g2[0]->name()}, {}, &out).is_ok());
  test::expect_all_near(out[0], tensor::from_vector<double>({3}, {1, 0, 1}), 0,
                        "registered gradient");
}

TEST_F(gradients, an_mlp_batch_matches_finite_differences_on_sampled_weights) {
  // 784 - h - 10 with ReLU and mean sparse cross entropy on 128 rows, in
  // float64, for a hidden width below and above the offload threshold.
  for (int64_t h : {64, 128}) {
    SCOPED_TRACE(h);
    scope s{e.context().ops()};
    auto x = graph::constant(s, u({128, 784}, 11));
    std::vector<int64_t> labels(128);
    for (size_t i = 0; i < labels.size(); ++i)
      labels[i] = static_cast<int64_t>(i * 7 % 10);
    auto y = graph::constant(s, tensor::from_vector<int64_t>({128}, labels));
    auto w1 = graph::placeholder(s.sub("w1"), dtype::float64, {784, h});
    auto b1 = graph::placeholder(s.sub("b1"), dtype::float64, {h});
    auto w2 = graph::placeholder(s.sub("w2"), dtype::float64, {h, 10});
    auto hidden
      = graph::relu(s, graph::bias_add(s, graph::matmul(s, x, w1), b1));
    auto logits = graph::matmul(s, hidden, w2);
    auto loss = graph::reduce_mean(
      s, graph::sparse_softmax_cross_entropy_with_logits(s, logits, y).first,
      {0});
    auto g = graph::gradients(s, {loss}, {w1, b1, w2});
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> values{uniform({784, h}, -0.08, 0.08, 1),
                               uniform({h}, -0.1, 0.1, 2),
                               uniform({h, 10}, -0.3, 0.3, 3)};
    std::vector<output> params{w1, b1, w2};
    auto feeds_of = [&](const std::vector<tensor>& v) {
      return actors::feed_list{
        {w1.name(), v[0]}, {b1.name(), v[1]}, {w2.name(), v[2]}};
    };
    std::vector<tensor> analytic, out;
    ASSERT_TRUE(sess
                  .run(feeds_of(values),
                       {g[0]->name(), g[1]->name(), g[2]->name()}, {},
                       &analytic)
                  .is_ok());
    std::mt19937 pick{5};
    for (size_t p = 0; p < 3; ++p)
      for (int sample = 0; sample < 6; ++sample) {
        auto j = static_cast<int64_t>(
          pick() % static_cast<unsigned>(values[p].num_elements()));
        auto at = [&](double delta) {
          auto v = values;
          EXPECT_TRUE(values[p].deep_copy(&v[p]).is_ok());
          v[p].mutable_data<double>()[j] += delta;
          EXPECT_TRUE(sess.run(feeds_of(v), {loss.name()}, {}, &out).is_ok());
          return out[0].data<double>()[0];
        };
        auto numeric = (at(1e-6) - at(-1e-6)) / 2e-6;
        EXPECT_NEAR(analytic[p].data<double>()[j], numeric, 1e-7)
          << "parameter " << p << " element " << j;
      }
  }
}
