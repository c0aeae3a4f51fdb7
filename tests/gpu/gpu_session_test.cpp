// Sessions with GPU nodes: a training step whose variables, forward and
// backward pass live on gpu:0 trains as the same step on the CPU; a while
// loop with a GPU body computes what it computes on the CPU; a node asking
// for the GPU without a GPU kernel falls back to the CPU. Skipped where no
// GPU is visible (CI).

#include <cmath>

#include <gtest/gtest.h>

#include "actorflow/actors/session.hpp"
#include "actorflow/devices/gpu.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/rnn.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "common/golden.hpp"
#include "common/loop_cases.hpp"
#include "common/small_mlp.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;

namespace {

class gpu_session : public ::testing::Test {
protected:
  void SetUp() override {
    if (devices::visible_gpus() == 0)
      GTEST_SKIP() << "no GPU here: the GPU sessions are checked where one is";
  }

  /// Builds with `build` on `device`, runs `init`, then `steps` runs;
  /// returns the last run's outputs and partitions.
  std::vector<tensor> run(const std::string& device,
                          const std::function<void(graph::scope&)>& build,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets,
                          const actors::feed_list& feeds, int steps,
                          actors::run_metadata* md) {
    graph::scope root{e.context().ops()};
    auto s = root.with_device(device);
    build(s);
    auto init = root.initializer().name;
    EXPECT_TRUE(root.ok()) << root.status().to_string();
    actors::session sess{e};
    auto st = sess.extend(root.graph_def());
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    std::vector<tensor> out;
    st = sess.run({}, {}, {init}, &out);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    actors::run_options ro;
    ro.output_partition_graphs = true;
    for (int i = 0; i < steps; ++i) {
      st = sess.run(ro, feeds, fetches, targets, &out, md);
      EXPECT_TRUE(st.is_ok()) << st.to_string();
    }
    return out;
  }

  actors::engine e;
};

/// How many nodes of `md`'s partitions on a GPU run op `op`.
int on_gpu(const actors::run_metadata& md, const std::string& op) {
  int n = 0;
  for (const auto& part : md.partition_graphs)
    for (const auto& node : part.nodes())
      n += node.op == op && node.device.find("gpu:") != std::string::npos;
  return n;
}

TEST_F(gpu_session, a_training_step_trains_as_on_the_cpu) {
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  auto build = [&](graph::scope& s) {
    auto x = graph::placeholder(s.sub("x"), dtype::float64, {4, 3});
    auto labels = graph::placeholder(s.sub("labels"), dtype::int32, {4});
    test::small_mlp mlp{s, false};
    auto w1 = mlp.w1, b1 = mlp.b1, w2 = mlp.w2;
    auto h = graph::relu(s, graph::bias_add(s, graph::matmul(s, x, w1), b1));
    auto logits = graph::matmul(s, h, w2);
    auto loss = graph::reduce_mean(
      s,
      graph::sparse_softmax_cross_entropy_with_logits(s, logits, labels).first,
      {0});
    graph::optimizer sgd;
    sgd.learning_rate = 0.1;
    auto train = graph::minimize(s.sub("train"), loss, {w1, b1, w2}, sgd);
    fetches = {loss.name(), w1.name(), b1.name(), w2.name()};
    targets = {train.name};
  };
  actors::feed_list feeds{
    {"x", tensor::from_vector<double>(
            {4, 3}, {1, 2, 3, -1, 0.5, 2, 0, 0, 1, 3, -2, 0.25})},
    {"labels", tensor::from_vector<int32_t>({4}, {0, 1, 1, 0})}};
  actors::run_metadata gpu_md;
  actors::run_metadata cpu_md;
  auto gpu = run("gpu:0", build, fetches, targets, feeds, 3, &gpu_md);
  auto cpu = run("cpu:0", build, fetches, targets, feeds, 3, &cpu_md);
  ASSERT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < gpu.size(); ++i)
    test::expect_all_near(gpu[i], cpu[i], 1e-10, fetches[i]);
  // The work and the variables were on the GPU.
  EXPECT_GE(on_gpu(gpu_md, "MatMul") + on_gpu(gpu_md, "_FusedMatMul"), 2);
  EXPECT_EQ(on_gpu(gpu_md, "ApplyGradientDescent"), 3);
  EXPECT_EQ(on_gpu(gpu_md, "VariableV2"), 3);
  EXPECT_EQ(on_gpu(cpu_md, "MatMul") + on_gpu(cpu_md, "_FusedMatMul"), 0);
}

TEST_F(gpu_session, a_loop_with_a_gpu_body_computes_as_on_the_cpu) {
  std::vector<std::string> fetches;
  auto build = [&](graph::scope& s) {
    auto n = graph::placeholder(s.sub("n"), dtype::int64);
    auto outs = test::halving_loop(s, n, "gpu:0");
    fetches = {outs[0].name(), outs[1].name()};
  };
  auto build_cpu = [&](graph::scope& s) {
    auto n = graph::placeholder(s.sub("n"), dtype::int64);
    auto outs = test::halving_loop(s, n, "cpu:0");
    fetches = {outs[0].name(), outs[1].name()};
  };
  actors::feed_list feeds{{"n", tensor::scalar<int64_t>(12)}};
  actors::run_metadata gpu_md;
  actors::run_metadata cpu_md;
  auto gpu = run("cpu:0", build, fetches, {}, feeds, 2, &gpu_md);
  auto cpu = run("cpu:0", build_cpu, fetches, {}, feeds, 1, &cpu_md);
  ASSERT_EQ(gpu.size(), 2u);
  test::expect_all_near(gpu[0], cpu[0], 0, "counter");
  test::expect_all_near(gpu[1], cpu[1], 1e-12, "x");
  EXPECT_GE(on_gpu(gpu_md, "Mul"), 1);
  EXPECT_GE(on_gpu(gpu_md, "Merge"), 1);
}

TEST_F(gpu_session, a_cond_with_gpu_branches_computes_as_on_the_cpu) {
  // The predicate is a bool fed on the host; each branch multiplies and
  // applies a nonlinearity on `device`. Both values of the predicate.
  std::vector<std::string> fetches;
  auto builder = [&](const std::string& device) {
    return [&fetches, device](graph::scope& s) {
      auto p = graph::placeholder(s.sub("p"), dtype::bool_, {});
      auto x = graph::placeholder(s.sub("x"), dtype::float32, {2, 3});
      auto w = graph::constant(
        s.sub("w"), tensor::from_vector<float>(
                      {3, 2}, {0.5f, -1.0f, 0.25f, 2.0f, -0.75f, 1.5f}));
      auto picked = graph::cond(
        s, p,
        [&](const graph::scope& t) {
          auto on = t.with_device(device);
          return std::vector<graph::output>{
            graph::relu(on, graph::matmul(on, x, w))};
        },
        [&](const graph::scope& f) {
          auto on = f.with_device(device);
          return std::vector<graph::output>{graph::neg(
            on, graph::matmul(on, x,
                              graph::mul(on, graph::constant(on, 2.0f), w)))};
        });
      fetches = {picked[0].name()};
    };
  };
  for (bool pred : {true, false}) {
    actors::feed_list feeds{
      {"p", tensor::scalar<bool>(pred)},
      {"x", tensor::from_vector<float>({2, 3}, {1, -2, 3, 0.5f, 4, -1})}};
    actors::run_metadata gpu_md;
    actors::run_metadata cpu_md;
    auto gpu = run("cpu:0", builder("gpu:0"), fetches, {}, feeds, 2, &gpu_md);
    auto cpu = run("cpu:0", builder("cpu:0"), fetches, {}, feeds, 1, &cpu_md);
    ASSERT_EQ(gpu.size(), 1u);
    test::expect_all_near(gpu[0], cpu[0], 1e-6,
                          pred ? "then branch" : "else branch");
    EXPECT_EQ(on_gpu(gpu_md, "MatMul") + on_gpu(gpu_md, "_FusedMatMul"), 2);
    EXPECT_EQ(on_gpu(cpu_md, "MatMul") + on_gpu(cpu_md, "_FusedMatMul"), 0);
  }
}

TEST_F(gpu_session, a_node_without_a_gpu_kernel_falls_back_to_the_cpu) {
  std::vector<std::string> fetches;
  auto build = [&](graph::scope& s) {
    // int64 Add has no GPU kernel: soft placement puts it on the CPU.
    auto a = graph::placeholder(s.sub("a"), dtype::int64);
    auto sum = graph::add(s, a, graph::constant(s, 2.0, dtype::int64));
    fetches = {sum.name()};
  };
  actors::run_metadata md;
  auto out = run("gpu:0", build, fetches, {},
                 {{"a", tensor::scalar<int64_t>(40)}}, 1, &md);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].scalar_value<int64_t>(), 42);
  EXPECT_EQ(on_gpu(md, "Add"), 0);
}

} // namespace

TEST_F(gpu_session,
       a_dynamic_rnn_with_its_cell_on_the_gpu_computes_as_on_the_cpu) {
  // An LSTM through dynamic_rnn with sequence_length, and its gradients,
  // asked for on gpu:0: the cell's products and activations run there,
  // the TensorArrays (no GPU kernels) stay with their handles on the CPU,
  // and the elements cross by copies each iteration.
  std::vector<std::string> fetches;
  auto build = [&](graph::scope& s) {
    constexpr int64_t depth = 8, units = 16;
    std::vector<float> xv, kv;
    for (int i = 0; i < 4 * 6 * depth; ++i)
      xv.push_back(static_cast<float>(std::sin(0.37 * i)));
    for (int i = 0; i < (depth + units) * 4 * units; ++i)
      kv.push_back(static_cast<float>(0.2 * std::cos(0.61 * i)));
    auto x = graph::constant(s.sub("x"),
                             tensor::from_vector<float>({4, 6, depth}, xv));
    auto kernel = graph::constant(
      s.sub("kernel"),
      tensor::from_vector<float>({depth + units, 4 * units}, kv));
    auto bias = graph::zeros(s.sub("bias"), {4 * units}, dtype::float32);
    auto lengths = graph::constant(
      s.sub("lengths"), tensor::from_vector<int32_t>({4}, {6, 2, 5, 1}));
    auto r = graph::dynamic_rnn(s, graph::lstm_cell{kernel, bias}, x, lengths);
    auto loss = graph::reduce_sum(s, r.outputs * r.outputs, {0, 1, 2})
                + graph::reduce_sum(s, r.state[0], {0, 1});
    auto g = graph::gradients(s, {loss}, {x, kernel});
    fetches
      = {r.outputs.name(), r.state[1].name(), g.at(0)->name(), g.at(1)->name()};
  };
  actors::run_metadata gpu_md, cpu_md;
  auto gpu = run("gpu:0", build, fetches, {}, {}, 2, &gpu_md);
  auto cpu = run("cpu:0", build, fetches, {}, {}, 1, &cpu_md);
  ASSERT_EQ(gpu.size(), 4u);
  ASSERT_EQ(cpu.size(), 4u);
  const char* names[] = {"outputs", "h", "d_x", "d_kernel"};
  for (size_t i = 0; i < 4; ++i)
    test::expect_all_near(gpu[i], cpu[i], 1e-4, names[i]);
  EXPECT_GE(on_gpu(gpu_md, "MatMul") + on_gpu(gpu_md, "_FusedMatMul"), 1);
  EXPECT_GE(on_gpu(gpu_md, "Sigmoid"), 1);
  EXPECT_EQ(on_gpu(gpu_md, "TensorArrayWriteV3"), 0);
}
