// An LSTM unrolled by while_loop over a sequence placeholder of unknown
// length, as a user declares it (issue 11, part 2): d sum(h_T) / d(W, b)
// against central differences and against TensorFlow's tf.gradients
// (tests/golden/control_flow.txt, from gen_control_flow_golden.py), for
// T = 1..6. Before the fix the backward loop differentiated with respect to
// the sequence too, which nobody asked for, and failed on GatherV2; and a
// second gradients() of the same loop gave zeros.

#include <cmath>
#include <optional>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/control_flow.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "common/central_differences.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using graph::output;
using outputs = std::vector<graph::output>;

namespace {

constexpr int64_t input_size = 3;
constexpr int64_t hidden = 4;

/// The LSTM of gen_control_flow_golden.py's lstm_gradient, written as a
/// user would: gates i, f, o, g are the column blocks of [x_t, h] @ W + b.
struct lstm {
  graph::scope s;
  output seq, w, b, loss;
  std::optional<output> dw, db, dseq;

  /// Builds the LSTM and d loss / d(W, b); with `and_seq`, d loss / d seq
  /// too, in a second gradients().
  lstm(const ops::op_registry& ops, bool and_seq) : s(ops) {
    seq = graph::placeholder(s.sub("seq"), dtype::float64, {-1, input_size});
    w = graph::placeholder(s.sub("w"), dtype::float64,
                           {input_size + hidden, 4 * hidden});
    b = graph::placeholder(s.sub("b"), dtype::float64, {4 * hidden});
    auto zeros = graph::zeros(s, {1, hidden}, dtype::float64);
    auto steps = graph::strided_slice(s, graph::shape_of(s, seq), {0}, {1}, {1},
                                      {0, 0, 0, 0, 1});
    auto r = graph::while_loop(
      s.sub("lstm"), [&](graph::scope, outputs v) { return v[0] < steps; },
      [&](graph::scope bs, outputs v) {
        auto x = graph::reshape(bs, graph::gather(bs, seq, v[0]),
                                std::vector<int64_t>{1, input_size});
        auto z = graph::matmul(bs, graph::concat(bs, {x, v[1]}, 1), w) + b;
        auto gate = graph::split(bs, z, 1, 4);
        auto c = graph::sigmoid(bs, gate[1]) * v[2]
                 + graph::sigmoid(bs, gate[0]) * graph::tanh(bs, gate[3]);
        auto h = graph::sigmoid(bs, gate[2]) * graph::tanh(bs, c);
        return outputs{v[0] + graph::constant(bs, 1), h, c};
      },
      {graph::constant(s, 0), zeros, zeros});
    if (r.size() == 3)
      loss = graph::reduce_sum(s, r[1], {0, 1});
    // As the issue wrote it: no gradient for the sequence asked for.
    auto g = graph::gradients(s, {loss}, {w, b});
    dw = g.at(0);
    db = g.at(1);
    // The sequence's own, through Gather with params of unknown shape (and
    // a second backward loop for the same forward loop).
    if (and_seq)
      dseq = graph::gradients(s, {loss}, {seq}).at(0);
  }
};

class lstm_gradient : public ::testing::Test {
protected:
  /// The first `steps` rows of the golden sequence.
  tensor sequence(int64_t steps) {
    const auto& all = golden.at("lstm_seq");
    std::vector<double> rows(all.data<double>(),
                             all.data<double>() + steps * input_size);
    return tensor::from_vector<double>({steps, input_size}, rows);
  }

  actors::engine e;
  std::map<std::string, tensor> golden = test::load_golden("control_flow.txt");
};

} // namespace

TEST_F(lstm_gradient, differentiates_nothing_that_was_not_asked_for) {
  lstm net{e.context().ops(), false};
  ASSERT_TRUE(net.s.ok()) << net.s.status().to_string();
  // The backward loop of d(W, b) carries no sum for the sequence, so no
  // gradient of the Gather that reads it is built.
  for (const auto& node : net.s.graph_def().nodes())
    EXPECT_EQ(node.name.find("GatherV2_grad"), std::string::npos) << node.name;
}

TEST_F(lstm_gradient, over_a_sequence_of_unknown_length_equals_tensorflows) {
  lstm net{e.context().ops(), true};
  ASSERT_TRUE(net.s.ok()) << net.s.status().to_string();
  ASSERT_TRUE(net.dw && net.db && net.dseq);
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(net.s.graph_def()).is_ok());
  const auto& w = golden.at("lstm_w");
  const auto& b = golden.at("lstm_b");
  for (int64_t steps = 1; steps <= 6; ++steps) {
    auto stem = "lstm_t" + std::to_string(steps) + "_";
    std::vector<tensor> out;
    auto st = sess.run(
      {{net.seq.name(), sequence(steps)}, {net.w.name(), w}, {net.b.name(), b}},
      {net.loss.name(), net.dw->name(), net.db->name(), net.dseq->name()}, {},
      &out);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    ASSERT_EQ(out.size(), 4u);
    test::expect_all_near(out[0], golden.at(stem + "loss"), 1e-12, "loss");
    test::expect_all_near(out[1], golden.at(stem + "dw"), 1e-12, "dw");
    test::expect_all_near(out[2], golden.at(stem + "db"), 1e-12, "db");
    test::expect_all_near(out[3], golden.at(stem + "dseq"), 1e-12, "dseq");
  }
}

TEST_F(lstm_gradient, matches_central_differences_for_every_weight) {
  lstm net{e.context().ops(), false};
  ASSERT_TRUE(net.s.ok()) << net.s.status().to_string();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(net.s.graph_def()).is_ok());
  const auto& w = golden.at("lstm_w");
  const auto& b = golden.at("lstm_b");
  for (int64_t steps = 1; steps <= 6; ++steps) {
    auto seq = sequence(steps);
    auto loss_at = [&](const tensor& wv, const tensor& bv) {
      std::vector<tensor> out;
      auto st = sess.run(
        {{net.seq.name(), seq}, {net.w.name(), wv}, {net.b.name(), bv}},
        {net.loss.name()}, {}, &out);
      EXPECT_TRUE(st.is_ok()) << st.to_string();
      return out.empty() ? NAN : out[0].scalar_value<double>();
    };
    std::vector<tensor> grads;
    ASSERT_TRUE(
      sess
        .run({{net.seq.name(), seq}, {net.w.name(), w}, {net.b.name(), b}},
             {net.dw->name(), net.db->name()}, {}, &grads)
        .is_ok());
    ASSERT_EQ(grads.size(), 2u);
    auto worst
      = std::max(test::worst_gradient_error(
                   w, grads[0], [&](const tensor& v) { return loss_at(v, b); }),
                 test::worst_gradient_error(b, grads[1], [&](const tensor& v) {
                   return loss_at(w, v);
                 }));
    EXPECT_LT(worst, 1e-8) << "T = " << steps;
  }
}
