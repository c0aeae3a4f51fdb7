// P14: the forward and backward step (with --train, SGD too) of one
// sparsely-gated
// mixture-of-experts layer (graph::moe_layer) at batch 1024, k = 2,
// experts 784 -> 512 (ReLU) -> 784, with 4 and with 64 experts in one
// process; and the same step of a dense layer of the same per-example
// FLOPs (784 -> 1024 -> 784, what two experts compute) to put the
// dispatch and combine into figures. Loss: mean squared error against
// the input plus the balancing loss. Noisy gating from zero weights: the
// noise spreads the rows over the experts.
//
//   bench_moe [--batch B] [--k K] [--small N] [--large N] [--steps S]
//             [--warmup W] [--rounds R] [--spread D] [--train]
//             [--profile]
//
// Last output line: {"bench": "moe", "ms_per_step_4": ...,
// "ms_per_step_64": ..., "ratio_64_to_4": ..., "ms_per_step_dense": ...,
// "overhead_4_to_dense": ...}: each the best round's mean step.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include <CLI/CLI.hpp>

#include "actorflow/actors/session.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/moe.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "common/process_memory.hpp"
#include "json_line.hpp"

using namespace actorflow;
using core::dtype;
using core::tensor;
using graph::output;

namespace {

void check(const core::status& st) {
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    std::exit(1);
  }
}

struct sizes {
  int64_t batch = 1024, depth = 784, hidden = 512, k = 2;
  int steps = 10, warmup = 3, rounds = 3;
  int spread = 1;
  bool train = false;
  bool profile = false;
};

/// The weights of relu(x W1 + b1) W2 + b2, variables under `s`.
struct two_layers {
  output w1, b1, w2, b2;

  two_layers(const graph::scope& s, int64_t depth, int64_t hidden, int64_t seed,
             std::vector<output>* vars) {
    auto weight = [&](const char* name, int64_t in, int64_t out) {
      auto scale
        = graph::constant(s, 1.0 / std::sqrt(double(in)), dtype::float32);
      auto init = graph::random_normal(s.sub(name).sub("init"), {in, out}, 0.0,
                                       1.0, dtype::float32, {seed, in + out});
      vars->push_back(graph::variable(s.sub(name), graph::mul(s, init, scale)));
      return vars->back();
    };
    auto bias = [&](const char* name, int64_t n) {
      vars->push_back(graph::variable(
        s.sub(name), graph::zeros(s.sub(name).sub("init"), {n})));
      return vars->back();
    };
    w1 = weight("w1", depth, hidden);
    b1 = bias("b1", hidden);
    w2 = weight("w2", hidden, depth);
    b2 = bias("b2", depth);
  }

  output apply(const graph::scope& s, const output& x) const {
    auto h = graph::relu(s, graph::add(s, graph::matmul(s, x, w1), b1));
    return graph::add(s, graph::matmul(s, h, w2), b2);
  }
};

/// Builds the step (`experts` 0: the dense twin), runs it and returns the
/// best round's mean milliseconds per step.
double time_step(actors::engine& e, const sizes& z, int64_t experts,
                 const tensor& data) {
  // Each configuration's variables under its own name: the engine keeps
  // variables across sessions.
  graph::scope root{e.context().ops()};
  auto s = root.sub(experts == 0 ? "dense" : "moe" + std::to_string(experts));
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {z.batch, z.depth});
  output y, extra;
  std::vector<output> vars;
  if (experts == 0) {
    y = two_layers{s.sub("dense"), z.depth, z.k * z.hidden, 1, &vars}.apply(s,
                                                                            x);
  } else {
    auto gating = graph::moe_gating::make(s.sub("gating"), z.depth, experts);
    vars = gating.weights();
    graph::moe_experts ex;
    ex.count = experts;
    ex.output_size = z.depth;
    for (int d = 0; z.spread > 1 && d < z.spread; ++d)
      ex.devices.push_back("cpu:" + std::to_string(d));
    // The experts' variables outside the layer (its conds), each on the
    // device its expert runs on.
    std::vector<two_layers> nets;
    for (int64_t i = 0; i < experts; ++i) {
      auto es = s.sub("expert_" + std::to_string(i));
      if (!ex.devices.empty())
        es = es.with_device(
          ex.devices[static_cast<size_t>(i) % ex.devices.size()]);
      nets.emplace_back(es, z.depth, z.hidden, 10 + i, &vars);
    }
    ex.build = [&](const graph::scope& b, const output& rows, int64_t i) {
      return nets[static_cast<size_t>(i)].apply(b, rows);
    };
    graph::moe_options o;
    o.k = z.k;
    o.seed = {3, 4};
    auto m = graph::moe_layer(s, x, gating, ex, o);
    y = m.y;
    extra = m.loss;
  }
  auto loss
    = graph::reduce_mean(s, graph::square(s, graph::sub(s, y, x)), {0, 1});
  if (extra.valid())
    loss = graph::add(s, loss, extra);
  // Forward and backward: the gradients of every weight, run as targets
  // (nothing fetched); with --train also their SGD updates.
  std::vector<std::string> targets;
  if (z.train) {
    graph::optimizer sgd;
    sgd.learning_rate = 0.01;
    targets.push_back(graph::minimize(s.sub("train"), loss, vars, sgd).name);
  } else {
    for (const auto& g : graph::gradients(s.sub("grad"), {loss}, vars))
      if (g.has_value())
        targets.push_back(g->node_name());
  }
  auto init = s.initializer();
  check(s.status());
  actors::session sess{e};
  check(sess.extend(s.graph_def()));
  std::vector<tensor> out;
  check(sess.run({}, {}, {init.name}, &out));
  auto step = [&] {
    check(sess.run({{x.name(), data}}, {loss.name()}, targets, &out));
    return out[0].scalar_value<float>();
  };
  for (int i = 0; i < z.warmup; ++i)
    step();
  if (z.profile) {
    // One traced step: the kernels' time by op, most first.
    actors::run_options traced;
    traced.trace = actors::trace_level::full;
    actors::run_metadata md;
    check(
      sess.run(traced, {{x.name(), data}}, {loss.name()}, targets, &out, &md));
    std::map<std::string, double> by_op;
    for (const auto& d : md.stats.devices)
      for (const auto& n : d.nodes)
        by_op[n.op] += double(n.end_us - n.start_us) / 1000;
    std::vector<std::pair<double, std::string>> top;
    for (const auto& [op, ms] : by_op)
      top.emplace_back(ms, op);
    std::sort(top.rbegin(), top.rend());
    for (size_t i = 0; i < std::min<size_t>(top.size(), 12); ++i)
      std::printf("  %-24s %8.2f ms\n", top[i].second.c_str(), top[i].first);
  }
  double best = 1e30;
  for (int round = 0; round < z.rounds; ++round) {
    float last = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < z.steps; ++i)
      last = step();
    auto ms = std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - t0)
                .count()
              / z.steps;
    std::printf("%s round %d: %.2f ms per step, loss %.4f\n",
                experts == 0 ? "dense"
                             : (std::to_string(experts) + " experts").c_str(),
                round, ms, last);
    best = std::min(best, ms);
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  sizes z;
  int64_t small = 4, large = 64;
  CLI::App app{"P14: a mixture-of-experts layer's training step with few and "
               "many experts, and its dense twin"};
  app.add_option("--batch", z.batch)->capture_default_str();
  app.add_option("--k", z.k, "Experts per example")->capture_default_str();
  app.add_option("--small", small, "Experts of the first layer")
    ->capture_default_str();
  app.add_option("--large", large, "Experts of the second layer")
    ->capture_default_str();
  app.add_option("--steps", z.steps, "Timed steps per round")
    ->capture_default_str();
  app.add_option("--warmup", z.warmup, "Untimed steps first")
    ->capture_default_str();
  app.add_option("--rounds", z.rounds, "Rounds; the best counts")
    ->capture_default_str();
  app
    .add_option("--spread", z.spread,
                "Experts round robin over cpu:0 .. cpu:D-1")
    ->capture_default_str();
  app.add_flag("--train", z.train, "Apply SGD updates too");
  app.add_flag("--profile", z.profile,
               "Print the kernels' time by op of one traced step");
  CLI11_PARSE(app, argc, argv);

  std::mt19937 rng{5};
  std::normal_distribution<float> normal;
  std::vector<float> values(static_cast<size_t>(z.batch * z.depth));
  for (auto& v : values)
    v = normal(rng);
  auto data = tensor::from_vector<float>({z.batch, z.depth}, values);

  actors::engine_options eo;
  eo.num_cpu_devices = std::max(2, z.spread);
  actors::engine e{eo};
  auto dense = time_step(e, z, 0, data);
  auto few = time_step(e, z, small, data);
  auto many = time_step(e, z, large, data);
  bench::print_json_line(
    {{"bench", "moe"},
     {"batch", z.batch},
     {"k", z.k},
     {"experts_small", small},
     {"experts_large", large},
     {"ms_per_step_dense", bench::rounded(dense, 2)},
     {"ms_per_step_4", bench::rounded(few, 2)},
     {"ms_per_step_64", bench::rounded(many, 2)},
     {"ratio_64_to_4", bench::rounded(many / few, 3)},
     {"overhead_4_to_dense", bench::rounded(few / dense, 3)},
     {"peak_rss_mb", bench::rounded(test::peak_rss_mb(), 1)}});
  return 0;
}
