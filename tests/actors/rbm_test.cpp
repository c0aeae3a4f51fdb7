// graph::rbm (issue 38): a contrastive-divergence step changes the weights
// and biases by exactly lr (v0' ph0 - vk' phk) / batch and lr mean(v0 -
// vk), lr mean(ph0 - phk) of the samples it drew, its reconstruction
// error is the mean-field one; and CD-1, CD-3 and persistent CD learn two
// patterns (the reconstruction error falls from ~0.25 to under 0.05).

#include <cmath>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/rbm.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

constexpr int64_t batch = 4, visible = 6, hidden = 3;

/// Two patterns, each twice.
tensor patterns() {
  return tensor::from_vector<double>(
    {batch, visible},
    {1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1});
}

class rbm_test : public ::testing::Test {
protected:
  std::vector<tensor> run(actors::session& sess,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets = {}) {
    std::vector<tensor> out;
    auto st = sess.run({}, fetches, targets, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return out;
  }

  actors::engine e;
};

double at(const tensor& t, int64_t i, int64_t j) {
  return t.data<double>()[i * t.shape().dim(1) + j];
}

} // namespace

TEST_F(rbm_test, a_cd_step_updates_by_the_samples_it_drew) {
  for (int64_t k : {1, 3}) {
    SCOPED_TRACE("CD-" + std::to_string(k));
    graph::scope s{e.context().ops()};
    auto r
      = graph::rbm::make(s.sub("rbm"), visible, hidden, dtype::float64, {3, 4});
    auto v0 = graph::constant(s, patterns());
    graph::rbm_options o;
    o.cd_k = k;
    o.learning_rate = 0.5;
    o.seed = {5, 6};
    auto step = r.train_step(s, v0, o);
    auto init = s.initializer();
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    run(sess, {}, {init.name});
    std::vector<std::string> params{r.w().name(), r.visible_bias().name(),
                                    r.hidden_bias().name()};
    auto before = run(sess, params);
    auto drawn
      = run(sess,
            {step.positive_hidden.name(), step.negative_visible.name(),
             step.negative_hidden.name(), step.reconstruction_error.name()},
            {step.update.name});
    auto after = run(sess, params);
    ASSERT_EQ(drawn.size(), 4u);
    auto v = patterns();
    const auto &ph0 = drawn[0], &vk = drawn[1], &phk = drawn[2];
    for (int64_t i = 0; i < visible; ++i)
      for (int64_t j = 0; j < hidden; ++j) {
        double want = 0;
        for (int64_t b = 0; b < batch; ++b)
          want += at(v, b, i) * at(ph0, b, j) - at(vk, b, i) * at(phk, b, j);
        want *= 0.5 / batch;
        EXPECT_NEAR(at(after[0], i, j) - at(before[0], i, j), want, 1e-12);
      }
    for (int64_t i = 0; i < visible; ++i) {
      double want = 0;
      for (int64_t b = 0; b < batch; ++b)
        want += at(v, b, i) - at(vk, b, i);
      EXPECT_NEAR(after[1].data<double>()[i] - before[1].data<double>()[i],
                  0.5 * want / batch, 1e-12);
      // The negative phase's visible units are binary.
      for (int64_t b = 0; b < batch; ++b)
        EXPECT_TRUE(at(vk, b, i) == 0.0 || at(vk, b, i) == 1.0);
    }
    for (int64_t j = 0; j < hidden; ++j) {
      double want = 0;
      for (int64_t b = 0; b < batch; ++b)
        want += at(ph0, b, j) - at(phk, b, j);
      EXPECT_NEAR(after[2].data<double>()[j] - before[2].data<double>()[j],
                  0.5 * want / batch, 1e-12);
    }
    // The mean-field reconstruction, with the weights before the step.
    double err = 0;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < visible; ++i) {
        double x = before[1].data<double>()[i];
        for (int64_t j = 0; j < hidden; ++j)
          x += at(ph0, b, j) * at(before[0], i, j);
        double d = at(v, b, i) - 1 / (1 + std::exp(-x));
        err += d * d;
      }
    EXPECT_NEAR(drawn[3].scalar_value<double>(), err / (batch * visible),
                1e-12);
  }
}

TEST_F(rbm_test, cd_and_persistent_cd_learn_two_patterns) {
  for (auto [k, persistent] : {std::pair{1, false}, {3, false}, {1, true}}) {
    SCOPED_TRACE("CD-" + std::to_string(k) + (persistent ? " persistent" : ""));
    graph::scope s{e.context().ops()};
    auto r
      = graph::rbm::make(s.sub("rbm"), visible, hidden, dtype::float64, {7, 8});
    graph::rbm_options o;
    o.cd_k = k;
    o.persistent = persistent;
    o.batch = batch;
    o.learning_rate = 0.5;
    o.seed = {9, 10};
    auto step = r.train_step(s, graph::constant(s, patterns()), o);
    auto init = s.initializer();
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    run(sess, {}, {init.name});
    auto first
      = run(sess, {step.reconstruction_error.name()})[0].scalar_value<double>();
    double last = first;
    for (int i = 0; i < 400; ++i)
      last
        = run(sess, {step.reconstruction_error.name()}, {step.update.name})[0]
            .scalar_value<double>();
    EXPECT_GT(first, 0.2);
    EXPECT_LT(last, 0.05) << "from " << first;
  }
}
