// `actorflow demo`: the white paper's Figure 1 graph over two devices.

#include "cli/demo.hpp"

#include <cstdio>
#include <memory>
#include <random>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "common/flags.hpp"

namespace actorflow::apps {

namespace {

core::tensor random_tensor(std::mt19937& gen, core::shape s, float scale) {
  core::tensor t{core::dtype::float32, s};
  std::normal_distribution<float> dist{0.0f, scale};
  auto* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i)
    p[i] = dist(gen);
  return t;
}

int fail(const core::status& st) {
  std::fprintf(stderr, "actorflow demo: %s\n", st.to_string().c_str());
  return 1;
}

} // namespace

int run_demo(const demo_options& options) {
  using core::dtype;
  // x, and the matmul, add and relu outputs, each perhaps twice at a time.
  auto need = 2.0 * sizeof(float) * (784 + 3 * 100) * options.batch;
  if (auto msg
      = check_fits_in_memory(need, "--batch " + std::to_string(options.batch));
      !msg.empty())
    return fail(core::invalid_argument_error(msg, "; give a smaller --batch"));
  // Figure 1: W and x live on cpu:0, b and the rest of the layer on cpu:1.
  graph::scope root;
  auto cpu0 = root.with_device("cpu:0");
  auto cpu1 = root.with_device("cpu:1");
  auto W = graph::variable(cpu0.sub("W"), {100, 784}, dtype::float32);
  auto b = graph::variable(cpu1.sub("b"), {100, 1}, dtype::float32);
  auto x
    = graph::placeholder(cpu0.sub("x"), dtype::float32, {784, options.batch});
  auto layer = cpu1.sub("layer");
  auto relu = graph::relu(layer, graph::matmul(cpu0, W, x) + b);
  // Initialisers.
  std::mt19937 gen{42};
  auto init_w = graph::assign(
    cpu0.sub("init_W"), W,
    graph::constant(cpu0, random_tensor(gen, {100, 784}, 0.05f)));
  auto init_b
    = graph::assign(cpu1.sub("init_b"), b,
                    graph::constant(cpu1, random_tensor(gen, {100, 1}, 0.1f)));
  if (!root.ok())
    return fail(root.status());
  actors::engine e;
  if (!e.init_status().is_ok())
    return fail(e.init_status());
  actors::session sess{e};
  if (auto st = sess.extend(root.graph_def()); !st.is_ok())
    return fail(st);
  std::printf("Figure 1: %s = relu(matmul(W, x) + b), %zu nodes, "
              "W and x on cpu:0, b and relu on cpu:1\n",
              relu.node_name().c_str(), root.graph_def().size());
  if (auto st
      = sess.run({}, {}, {init_w.node_name(), init_b.node_name()}, nullptr);
      !st.is_ok())
    return fail(st);
  for (int step = 0; step < options.steps; ++step) {
    auto input = random_tensor(gen, {784, options.batch}, 1.0f);
    std::vector<core::tensor> out;
    if (auto st = sess.run({{x.name(), input}}, {relu.name()}, {}, &out);
        !st.is_ok())
      return fail(st);
    const auto& y = out[0];
    double sum = 0;
    int64_t positive = 0;
    for (int64_t i = 0; i < y.num_elements(); ++i) {
      sum += y.data<float>()[i];
      positive += y.data<float>()[i] > 0 ? 1 : 0;
    }
    std::printf("step %d: relu %s, sum %.4f, %lld of %lld positive, "
                "first %s\n",
                step + 1, y.shape().to_string().c_str(), sum,
                static_cast<long long>(positive),
                static_cast<long long>(y.num_elements()),
                y.debug_string(4).c_str());
  }
  return 0;
}

void add_demo_command(CLI::App& app, command_list* out) {
  auto demo = std::make_shared<demo_options>();
  auto* cmd = app.add_subcommand(
    "demo", "Run the white paper's Figure 1 graph, relu(matmul(W, x) + b), "
            "split over cpu:0 and cpu:1");
  cmd->add_option("--steps", demo->steps, "Steps to run")
    ->check(int_range(1, 1'000'000'000));
  cmd->add_option("--batch", demo->batch, "Columns of x")
    ->check(int_range(1, 1 << 30));
  out->push_back({cmd, [demo] { return run_demo(*demo); }});
}

} // namespace actorflow::apps
