// Where the nodes of training steps go with gpu:0 the default device, as
// the master places them (rewrite for the run, the engine's passes, soft
// placement) against the kernels a CUDA build registers: no GPU is needed,
// so this runs everywhere the GPU kernels are built, CI included. A node
// that falls back to the CPU costs a copy each way in every step.

#include <gtest/gtest.h>

#include "actorflow/devices/gpu.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/graph_passes.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "compile/place.hpp"
#include "compile/rewrite.hpp"

using namespace actorflow;
using core::dtype;

namespace {

class gpu_placement : public ::testing::Test {
protected:
  void SetUp() override {
    if (!devices::cuda_enabled())
      GTEST_SKIP() << "built without CUDA: no GPU kernels to place on";
    ASSERT_TRUE(ops::register_ops(registry).is_ok());
    ops::register_cpu_kernels(kernels);
    ops::register_gpu_kernels(kernels);
  }

  /// The nodes (op and name) that the step fetching `fetches` and
  /// running `targets` puts on the CPU.
  std::vector<std::string> on_the_cpu(const graph::scope& s,
                                      const graph::run_signature& sig) {
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    graph::graph g = s.graph_def();
    graph::graph_types types;
    EXPECT_TRUE(graph::validate(g, registry, &types).is_ok());
    graph::graph step;
    auto st = graph::rewrite_for_run(g, types, sig, &step);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    st = graph::validate(step, registry, &types, true);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    graph::pass_context ctx{
      registry, kernels, {sig.targets.begin(), sig.targets.end()}, "gpu:0"};
    st = graph::pass_pipeline::standard().run(step, ctx,
                                              graph::pass_selection{});
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    st = graph::validate(step, registry, &types, true);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    st = graph::place(step, types,
                      {"/job:localhost/replica:0/task:0/device:gpu:0",
                       "/job:localhost/replica:0/task:0/device:cpu:0"},
                      kernels, "gpu:0");
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    std::vector<std::string> cpu;
    for (const auto& n : step.nodes())
      if (n.device.find("cpu") != std::string::npos)
        cpu.push_back(n.op + " " + n.name);
    return cpu;
  }

  ops::op_registry registry;
  ops::kernel_registry kernels;
};

/// The cross-entropy of `logits` against `labels`, averaged, and an SGD
/// step on `vars`: the step's fetch and target.
graph::run_signature train_step(const graph::scope& s,
                                const graph::output& logits,
                                const graph::output& labels,
                                const std::vector<graph::output>& vars) {
  auto xent
    = graph::sparse_softmax_cross_entropy_with_logits(s, logits, labels);
  auto loss = graph::reduce_mean(s.sub("loss"), xent.first, {0});
  graph::optimizer sgd;
  sgd.learning_rate = 0.1;
  auto train = graph::minimize(s.sub("train"), loss, vars, sgd);
  return {{}, {loss.name()}, {train.name}};
}

/// Prints `nodes` one per line.
std::string listed(const std::vector<std::string>& nodes) {
  std::string out;
  for (const auto& n : nodes)
    out += "\n  " + n;
  return out;
}

TEST_F(gpu_placement, an_mlp_training_step_stays_on_the_gpu) {
  graph::scope s{registry};
  auto x = graph::variable(s.sub("x"), {128, 784}, dtype::float32);
  auto y = graph::variable(s.sub("y"), {128}, dtype::int64);
  std::vector<graph::output> vars;
  auto h = x;
  int64_t in = 784;
  for (int64_t out : {512, 256, 10}) {
    auto layer = s.sub("layer" + std::to_string(out));
    auto w = graph::variable(layer.sub("w"), {in, out}, dtype::float32);
    auto b = graph::variable(layer.sub("b"), {out}, dtype::float32);
    vars.insert(vars.end(), {w, b});
    h = graph::bias_add(layer, graph::matmul(layer, h, w), b);
    if (out != 10)
      h = graph::relu(layer, h);
    in = out;
  }
  auto cpu = on_the_cpu(s, train_step(s, h, y, vars));
  EXPECT_TRUE(cpu.empty()) << "on the CPU:" << listed(cpu);
}

TEST_F(gpu_placement, a_cnn_training_step_stays_on_the_gpu) {
  graph::scope s{registry};
  auto x = graph::variable(s.sub("x"), {32, 28, 28, 1}, dtype::float32);
  auto y = graph::variable(s.sub("y"), {32}, dtype::int64);
  std::vector<graph::output> vars;
  auto h = x;
  int64_t in = 1;
  graph::window_options halve;
  halve.stride_h = halve.stride_w = 2;
  for (int64_t out : {32, 64}) {
    auto layer = s.sub("conv" + std::to_string(out));
    auto f = graph::variable(layer.sub("f"), {5, 5, in, out}, dtype::float32);
    auto b = graph::variable(layer.sub("b"), {out}, dtype::float32);
    vars.insert(vars.end(), {f, b});
    h = graph::relu(layer,
                    graph::bias_add(layer, graph::conv2d(layer, h, f), b));
    h = graph::max_pool(layer, h, 2, 2, halve);
    in = out;
  }
  h = graph::reshape(s, h, {32, 7 * 7 * 64});
  auto w = graph::variable(s.sub("w"), {7 * 7 * 64, 10}, dtype::float32);
  vars.push_back(w);
  h = graph::matmul(s, h, w);
  auto cpu = on_the_cpu(s, train_step(s, h, y, vars));
  EXPECT_TRUE(cpu.empty()) << "on the CPU:" << listed(cpu);
}

} // namespace
