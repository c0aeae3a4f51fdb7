// Pipelines over worker processes (issue 39): a two-stage model, one stage
// per process, trained on 8 micro-batches a step gives the weights the
// same model gets in one process on whole batches; the trace of a step
// shows the stages of different micro-batches overlapping, and no stage
// running more than parallel_iterations micro-batches ahead of the last.

#include <algorithm>
#include <cmath>
#include <map>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/pipeline.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "cluster_fixture.hpp"
#include "common/golden.hpp"

using namespace actorflow;
using namespace actorflow::test;
using core::dtype;
using graph::output;
using outputs = std::vector<output>;

namespace {

constexpr int64_t micro_batches = 8;

/// The model's sizes.
struct dims {
  int64_t batch, in, hidden, out;
};

tensor wave(const core::shape& s, float scale, float phase) {
  std::vector<float> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * std::sin(0.61f * static_cast<float>(i) + phase);
  return tensor::from_vector<float>(s, v);
}

/// The model: tanh(x W1) on device a, its product with W2 on device b,
/// squared error, SGD. `micro` 0 runs the whole batch at once; otherwise
/// as a pipeline of `micro` micro-batches, `in_flight` at a time.
struct model {
  output x, t, w1, w2, loss;
  graph::operation train;
  std::string init;

  model(graph::scope& s, const dims& d, const std::string& a,
        const std::string& b, int64_t micro, int64_t in_flight) {
    x = graph::placeholder(s.sub("x"), dtype::float32, {-1, d.in});
    t = graph::placeholder(s.sub("t"), dtype::float32, {-1, d.out});
    w1
      = graph::variable(s.sub("w1").with_device(a),
                        graph::constant(s, wave({d.in, d.hidden}, 0.1f, 0.3f)));
    w2 = graph::variable(
      s.sub("w2").with_device(b),
      graph::constant(s, wave({d.hidden, d.out}, 0.1f, 1.1f)));
    auto stage_1 = [&](const graph::scope& at, const outputs& v) {
      return outputs{graph::tanh(at, graph::matmul(at, v[0], w1))};
    };
    auto stage_2 = [&](const graph::scope& at, const outputs& v) {
      return outputs{graph::matmul(at, v[0], w2)};
    };
    output y;
    if (micro == 0) {
      y = stage_2(s.with_device(b), stage_1(s.with_device(a), {x}))[0];
    } else {
      graph::pipeline_options o;
      o.micro_batches = micro;
      o.parallel_iterations = in_flight;
      auto ys = graph::pipeline(s, {{a, stage_1}, {b, stage_2}}, {x}, o);
      y = ys.empty() ? output{} : ys[0];
    }
    auto at_b = s.with_device(b);
    loss = graph::reduce_mean(at_b, graph::square(at_b, graph::sub(at_b, y, t)),
                              {0, 1});
    graph::optimizer sgd;
    sgd.learning_rate = 0.1;
    train = graph::minimize(s, loss, {w1, w2}, sgd);
    init = s.initializer().name;
  }
};

/// Start and end (µs) of each micro-batch's firing of a stage's MatMul.
using spans = std::map<int64_t, std::pair<int64_t, int64_t>>;

spans matmuls(const actors::run_metadata& m, const std::string& prefix) {
  spans out;
  for (const auto& d : m.stats.devices)
    for (const auto& n : d.nodes)
      if (n.op == "MatMul" && n.node.rfind(prefix, 0) == 0)
        out[n.iter] = {n.start_us, n.end_us};
  return out;
}

} // namespace

TEST_F(cluster, a_pipeline_over_two_processes_trains_as_one_process) {
  const dims d{64, 32, 48, 8};
  std::vector<tensor> xs, ts;
  for (int step = 0; step < 3; ++step) {
    xs.push_back(wave({d.batch, d.in}, 1.0f, 0.2f * static_cast<float>(step)));
    ts.push_back(wave({d.batch, d.out}, 0.5f, 2.0f));
  }
  // Runs 3 steps; returns the loss of each, then w1 and w2.
  auto train = [&](actors::engine& e, const std::string& a,
                   const std::string& b, int64_t micro) {
    graph::scope s{e.context().ops()};
    model net{s, d, a, b, micro, 0};
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{e};
    EXPECT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> values;
    EXPECT_TRUE(sess.run({}, {}, {net.init}, &values).is_ok());
    std::vector<tensor> result;
    for (size_t step = 0; step < xs.size(); ++step) {
      auto st = sess.run({{net.x.name(), xs[step]}, {net.t.name(), ts[step]}},
                         {net.loss.name()}, {net.train.name}, &values);
      EXPECT_TRUE(st.is_ok()) << st.to_string();
      if (!st.is_ok())
        return result;
      result.push_back(values.at(0));
    }
    auto st = sess.run({}, {net.w1.name(), net.w2.name()}, {}, &values);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    result.insert(result.end(), values.begin(), values.end());
    return result;
  };
  actors::engine local;
  auto whole = train(local, "cpu:0", "cpu:0", 0);
  auto piped = train(*client_, task0, task1, micro_batches);
  ASSERT_EQ(whole.size(), piped.size());
  for (size_t k = 0; k < whole.size(); ++k)
    expect_all_near(piped[k], whole[k], 1e-6, "result " + std::to_string(k));
  // The loss fell: the steps trained (on batches alike).
  EXPECT_LT(whole[2].data<float>()[0], whole[0].data<float>()[0]);
}

TEST_F(cluster, a_pipelines_stages_overlap_and_keep_pace) {
  // Products of 32 rows by 1024 x 1024 (a few ms each) against the
  // hops between the processes (a few hundred µs).
  const dims d{256, 1024, 1024, 1024};
  for (int64_t in_flight : {int64_t{1}, int64_t{2}}) {
    SCOPED_TRACE("parallel_iterations " + std::to_string(in_flight));
    // Other names than the first test's: the workers keep variables.
    graph::scope root{client_->context().ops()};
    auto s = root.sub("paced");
    model net{s, d, task0, task1, micro_batches, in_flight};
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    actors::session sess{*client_};
    ASSERT_TRUE(sess.extend(s.graph_def()).is_ok());
    std::vector<tensor> values;
    ASSERT_TRUE(sess.run({}, {}, {net.init}, &values).is_ok());
    // The stages overlap when both processes get a core: other tests
    // running beside this one may keep one waiting for a whole step, so
    // the step runs up to 8 times until it shows an overlap (the pace
    // holds every time). Three were not always enough in the sanitized
    // TLS pass under ctest -j2 (2026-11-28: 0 of 3 once, 8 of 8 alone).
    int overlaps = 0;
    for (int attempt = 0; attempt < 8 && (attempt == 0 || overlaps == 0);
         ++attempt) {
      actors::run_options opts;
      opts.trace = actors::trace_level::full;
      actors::run_metadata m;
      auto st = sess.run(opts,
                         {{net.x.name(), wave({d.batch, d.in}, 1.0f, 0.0f)},
                          {net.t.name(), wave({d.batch, d.out}, 0.5f, 2.0f)}},
                         {net.loss.name()}, {net.train.name}, &values, &m);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      auto first = matmuls(m, "paced/pipeline/while/body/stage_0/");
      auto second = matmuls(m, "paced/pipeline/while/body/stage_1/");
      ASSERT_EQ(first.size(), static_cast<size_t>(micro_batches));
      ASSERT_EQ(second.size(), static_cast<size_t>(micro_batches));
      overlaps = 0;
      for (int64_t k = 0; k < micro_batches; ++k) {
        // Pace: the first stage starts micro-batch k + in_flight only
        // after the last stage has finished micro-batch k.
        if (k + in_flight < micro_batches) {
          EXPECT_GE(first[k + in_flight].first, second[k].second)
            << "micro-batch " << k + in_flight << " ran ahead";
        }
        // Overlap: a later micro-batch's first stage while k's second
        // runs.
        for (int64_t j = k + 1; j < micro_batches; ++j)
          overlaps += first[j].first < second[k].second
                      && second[k].first < first[j].second;
      }
      if (in_flight == 1) {
        EXPECT_EQ(overlaps, 0);
        break;
      }
    }
    if (in_flight > 1) {
      EXPECT_GE(overlaps, 1);
    }
  }
}
