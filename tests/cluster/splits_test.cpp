// Every split the test can make of a graph over two worker processes gives
// the bits one process gives: each node of Figure 1 on either worker (64
// splits), the halving loop's condition and body on any of three devices
// of the two workers (9), and a queue-fed MLP training step with its
// variables on one process and its data, queue and computation on the
// other.

#include <gtest/gtest.h>

#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/placement.hpp"
#include "cluster_fixture.hpp"
#include "common/golden.hpp"
#include "common/loop_cases.hpp"
#include "models/fashion/fashion_training.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using namespace actorflow::test; // the fixture: cluster, built, task0, ...

namespace {

/// The second device of task 0. (A client connected to a cluster places
/// nodes on the cluster's devices only, as TensorFlow's does.)
constexpr const char* task0_cpu1 = "/job:worker/task:0/device:cpu:1";

/// The losses of `steps` training steps of a small queue-fed MLP on `e`,
/// its variables on `ps` and everything else on `worker`, every node's
/// name under `prefix`: a worker's variables and queues outlive sessions
/// (as on a TensorFlow server), so each run names its own.
std::vector<tensor> mlp_losses(actors::engine& e, const std::string& prefix,
                               const std::string& ps, const std::string& worker,
                               int steps) {
  graph::scope root{e.context().ops()};
  auto s = root.sub(prefix);
  apps::training_options options;
  options.model.hidden = {24, 16};
  options.batch = 8;
  options.optimizer.learning_rate = 0.05;
  constexpr int64_t examples = 40;
  apps::fashion_training g{s, examples, options};
  EXPECT_TRUE(root.ok()) << root.status().to_string();
  auto def = root.graph_def();
  graph::graph_types types;
  EXPECT_TRUE(graph::validate(def, e.context().ops(), &types).is_ok());
  EXPECT_TRUE(
    graph::place_replica(def, types, ps, worker, prefix + "/data/").is_ok());
  apps::fashion_data data;
  std::vector<uint8_t> pixels(examples * 784);
  std::vector<uint8_t> labels(examples);
  for (size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<uint8_t>((i * 37 + i / 784 * 11) % 256);
  for (size_t i = 0; i < labels.size(); ++i)
    labels[i] = static_cast<uint8_t>(i * 7 % 10);
  data.train_images = tensor::from_vector<uint8_t>({examples, 784}, pixels);
  data.train_labels = tensor::from_vector<uint8_t>({examples}, labels);
  actors::session sess{e};
  std::vector<tensor> out;
  EXPECT_TRUE(sess.extend(def).is_ok());
  auto st = sess.run(g.data_feeds(data), {}, {g.init}, &out);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  actors::queue_runner runner{sess, {g.fill}, g.close, g.cancel};
  runner.start();
  std::vector<tensor> losses;
  for (int i = 0; i < steps; ++i) {
    st = sess.run({}, {g.loss}, {g.train}, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    if (!out.empty())
      losses.push_back(out[0]);
  }
  runner.stop();
  EXPECT_TRUE(runner.status().is_ok()) << runner.status().to_string();
  return losses;
}

} // namespace

TEST_F(cluster, every_split_of_figure_one) {
  // relu(W x + b): bit i of the split puts node i on the second device.
  for (int split = 0; split < 64; ++split) {
    SCOPED_TRACE("split " + std::to_string(split));
    expect_same(
      [split](graph::scope& s, const std::string& a, const std::string& b) {
        auto on = [&](int i, const char* name) {
          return s.sub(name).with_device((split >> i & 1) ? b : a);
        };
        auto x = graph::placeholder(on(0, "x"), dtype::float32, {24, 16});
        auto w = graph::constant(on(1, "W"), iota({20, 24}, 0.03f));
        auto bias = graph::constant(on(2, "b"), iota({20, 1}, 0.1f));
        auto y = graph::relu(
          on(3, "relu"),
          graph::add(on(4, "add"), graph::matmul(on(5, "matmul"), w, x), bias));
        return built{{y.name()}, {{x.name(), iota({24, 16}, 0.05f)}}, {}, {}};
      },
      1);
  }
}

TEST_F(cluster, every_split_of_a_nested_loop) {
  // The condition and counter on one device, the body and its inner loop
  // on another (or the same), with TensorFlow's own result.
  auto golden = test::load_golden("control_flow.txt");
  for (const char* cond_device : {task0, task1, task0_cpu1}) {
    for (const char* body_device : {task0, task1, task0_cpu1}) {
      SCOPED_TRACE(std::string{cond_device} + " / " + body_device);
      auto results = run_on(
        *client_,
        [](graph::scope& s, const std::string& a, const std::string& b) {
          auto here = s.with_device(a);
          auto n = graph::constant(here.sub("n"), int64_t{20});
          return built{{test::halving_loop(here, n, b)[1].name()}, {}, {}, {}};
        },
        cond_device, body_device, 1);
      ASSERT_EQ(results.size(), 1u);
      ASSERT_EQ(results[0].size(), 1u);
      EXPECT_TRUE(same_bits(results[0][0], golden.at("halving_n20")))
        << results[0][0].debug_string();
    }
  }
}

TEST_F(cluster, a_queue_fed_mlp_step_with_its_variables_on_another_process) {
  constexpr int steps = 4;
  struct placement {
    const char* ps;
    const char* worker;
  };
  int run = 0;
  for (auto [ps, worker] : {placement{task0, task1}, placement{task1, task0},
                            placement{task0, task0_cpu1}}) {
    SCOPED_TRACE(std::string{"ps "} + ps + ", worker " + worker);
    auto prefix = "run" + std::to_string(run++);
    actors::engine local;
    auto one = mlp_losses(local, prefix, "cpu:0", "cpu:1", steps);
    auto many = mlp_losses(*client_, prefix, ps, worker, steps);
    ASSERT_EQ(one.size(), static_cast<size_t>(steps));
    ASSERT_EQ(many.size(), one.size());
    for (size_t i = 0; i < one.size(); ++i)
      EXPECT_TRUE(same_bits(one[i], many[i]))
        << "step " << i << ": " << one[i].debug_string() << " vs "
        << many[i].debug_string();
  }
}
