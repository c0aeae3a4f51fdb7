// The recurrent builders (issue 37): graph::dynamic_rnn over lstm_cell and
// gru_cell against TensorFlow's tf.nn.dynamic_rnn on the same weights and
// inputs (tests/golden/graphdef.txt, gen_graphdef_golden.py: outputs,
// final states and gradients), and basic_rnn_cell's gradients against
// central differences.

#include <cmath>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/rnn.hpp"
#include "common/central_differences.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using graph::output;

namespace {

class rnn : public ::testing::Test {
protected:
  output fed(const graph::scope& s, const std::string& name) {
    const auto& t = golden.at("dynamic_rnn_" + name);
    auto p = graph::placeholder(s.sub(name), t.dtype(), t.shape());
    feeds.emplace_back(p.name(), t);
    return p;
  }

  actors::engine e;
  std::map<std::string, tensor> golden = test::load_golden("graphdef.txt");
  actors::feed_list feeds;
};

} // namespace

TEST_F(rnn, lstm_and_gru_equal_tensorflows_dynamic_rnn_and_its_gradients) {
  graph::scope s{e.context().ops()};
  auto x = fed(s, "x"); // [batch 3, time 5, depth 3]
  auto lengths = fed(s, "lengths");
  auto lstm_kernel = fed(s, "lstm_kernel");
  auto lstm_bias = fed(s, "lstm_bias");
  auto gates_kernel = fed(s, "gru_gates_kernel");
  auto gates_bias = fed(s, "gru_gates_bias");
  auto candidate_kernel = fed(s, "gru_candidate_kernel");
  auto candidate_bias = fed(s, "gru_candidate_bias");
  graph::lstm_cell lstm{lstm_kernel, lstm_bias};
  graph::gru_cell gru{gates_kernel, gates_bias, candidate_kernel,
                      candidate_bias};
  auto a = graph::dynamic_rnn(s.sub("lstm"), lstm, x, lengths);
  graph::rnn_options time_major;
  time_major.time_major = true;
  auto b
    = graph::dynamic_rnn(s.sub("gru"), gru, graph::transpose(s, x, {1, 0, 2}),
                         lengths, {}, time_major);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_EQ(a.state.size(), 2u);
  ASSERT_EQ(b.state.size(), 1u);
  auto loss = graph::reduce_sum(s, a.outputs * a.outputs, {0, 1, 2})
              + graph::reduce_sum(s, a.state[0], {0, 1})
              + graph::reduce_sum(s, b.outputs, {0, 1, 2})
              + graph::reduce_sum(s, b.state[0] * b.state[0], {0, 1});
  std::vector<output> xs{
    x,          lstm_kernel,      lstm_bias,     gates_kernel,
    gates_bias, candidate_kernel, candidate_bias};
  auto g = graph::gradients(s, {loss}, xs);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  std::vector<std::pair<std::string, output>> checks{{"lstm_out", a.outputs},
                                                     {"lstm_c", a.state[0]},
                                                     {"lstm_h", a.state[1]},
                                                     {"gru_out", b.outputs},
                                                     {"gru_h", b.state[0]}};
  const char* grad_names[] = {"d_x",
                              "d_lstm_kernel",
                              "d_lstm_bias",
                              "d_gru_gates_kernel",
                              "d_gru_gates_bias",
                              "d_gru_candidate_kernel",
                              "d_gru_candidate_bias"};
  for (size_t i = 0; i < xs.size(); ++i) {
    ASSERT_TRUE(g.at(i)) << grad_names[i];
    checks.emplace_back(grad_names[i], *g.at(i));
  }
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<std::string> fetches;
  for (const auto& c : checks)
    fetches.push_back(c.second.name());
  std::vector<tensor> out;
  auto st = sess.run(feeds, fetches, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ASSERT_EQ(out.size(), checks.size());
  for (size_t i = 0; i < checks.size(); ++i)
    test::expect_all_near(out[i], golden.at("dynamic_rnn_" + checks[i].first),
                          1e-10, checks[i].first);
}

TEST_F(rnn, basic_cell_gradients_match_differences_past_each_length) {
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {2, -1, 2});
  auto kernel = graph::placeholder(s.sub("kernel"), dtype::float64, {5, 3});
  auto bias
    = graph::constant(s, tensor::from_vector<double>({3}, {0.1, -0.2, 0.05}));
  auto lengths = graph::constant(s, tensor::from_vector<int32_t>({2}, {1, 3}));
  auto r
    = graph::dynamic_rnn(s, graph::basic_rnn_cell{kernel, bias}, x, lengths);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto loss = graph::reduce_sum(s, r.outputs * r.outputs, {0, 1, 2})
              + graph::reduce_sum(s, r.state[0], {0, 1});
  auto g = graph::gradients(s, {loss}, {kernel});
  ASSERT_TRUE(g.at(0));
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<double> xv, kv;
  for (int i = 0; i < 2 * 4 * 2; ++i)
    xv.push_back(std::cos(0.9 * i));
  for (int i = 0; i < 15; ++i)
    kv.push_back(0.3 * std::sin(1.3 * i + 0.2));
  auto xt = tensor::from_vector<double>({2, 4, 2}, xv);
  auto kt = tensor::from_vector<double>({5, 3}, kv);
  std::vector<tensor> out;
  ASSERT_TRUE(sess
                .run({{x.name(), xt}, {kernel.name(), kt}},
                     {g.at(0)->name(), r.outputs.name()}, {}, &out)
                .is_ok());
  // Outputs past each sequence's length (1 and 3 of 4 steps) are zeros.
  const double* o = out[1].data<double>();
  for (int t = 1; t < 4; ++t)
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(o[(0 * 4 + t) * 3 + k], 0.0) << "t = " << t;
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(o[(1 * 4 + 3) * 3 + k], 0.0);
  auto loss_at = [&](const tensor& kk) {
    std::vector<tensor> l;
    EXPECT_TRUE(
      sess.run({{x.name(), xt}, {kernel.name(), kk}}, {loss.name()}, {}, &l)
        .is_ok());
    return l.empty() ? NAN : l[0].scalar_value<double>();
  };
  EXPECT_LT(test::worst_gradient_error(kt, out[0], loss_at), 1e-8);
}

TEST_F(rnn, a_multi_cell_in_one_loop_equals_its_layers_one_loop_each) {
  // An LSTM then a GRU, past each sequence's length too: one dynamic_rnn
  // over multi_rnn_cell gives what two stacked dynamic_rnns give, outputs,
  // every state part and every weight's gradient.
  graph::scope s{e.context().ops()};
  auto x = graph::placeholder(s.sub("x"), dtype::float64, {2, -1, 3});
  auto lengths = graph::constant(s, tensor::from_vector<int32_t>({2}, {2, 4}));
  auto lstm = std::make_shared<graph::lstm_cell>(
    graph::lstm_cell::make(s.sub("lstm"), 3, 4, dtype::float64, {5, 1}));
  auto gru = std::make_shared<graph::gru_cell>(
    graph::gru_cell::make(s.sub("gru"), 4, 2, dtype::float64, {5, 2}));
  graph::multi_rnn_cell both{{lstm, gru}};
  EXPECT_EQ(both.state_sizes(), (std::vector<int64_t>{4, 4, 2}));
  EXPECT_EQ(both.output_size(), 2);
  auto one = graph::dynamic_rnn(s.sub("one"), both, x, lengths);
  auto first = graph::dynamic_rnn(s.sub("first"), *lstm, x, lengths);
  auto second
    = graph::dynamic_rnn(s.sub("second"), *gru, first.outputs, lengths);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_EQ(one.state.size(), 3u);
  auto loss_of
    = [&](const graph::output& out, const std::vector<output>& state) {
        auto l = graph::reduce_sum(s, out * out, {0, 1, 2});
        for (const auto& part : state)
          l = l + graph::reduce_sum(s, part, {0, 1});
        return l;
      };
  std::vector<output> stacked_state = first.state;
  stacked_state.push_back(second.state[0]);
  auto weights = both.weights();
  ASSERT_EQ(weights.size(), 6u);
  auto g_one = graph::gradients(s, {loss_of(one.outputs, one.state)}, weights);
  auto g_two
    = graph::gradients(s, {loss_of(second.outputs, stacked_state)}, weights);
  std::vector<std::string> fetches{one.outputs.name(), second.outputs.name()};
  for (size_t k = 0; k < 3; ++k) {
    fetches.push_back(one.state[k].name());
    fetches.push_back(stacked_state[k].name());
  }
  for (size_t k = 0; k < weights.size(); ++k) {
    ASSERT_TRUE(g_one[k] && g_two[k]) << k;
    fetches.push_back(g_one[k]->name());
    fetches.push_back(g_two[k]->name());
  }
  auto init = s.initializer();
  actors::session sess{e};
  ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
  std::vector<tensor> out;
  ASSERT_TRUE(sess.run({}, {}, {init.name}, &out).is_ok());
  std::vector<double> xv;
  for (int i = 0; i < 2 * 4 * 3; ++i)
    xv.push_back(std::sin(0.7 * i + 0.1));
  auto st = sess.run({{x.name(), tensor::from_vector<double>({2, 4, 3}, xv)}},
                     fetches, {}, &out);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  for (size_t k = 0; k < out.size(); k += 2)
    test::expect_all_near(out[k], out[k + 1], 1e-12, fetches[k]);
}
