// P11: a two-stage pipeline over two worker processes (one thread each):
// --layers tanh layers of --width units on task 0, as many on task 1, over
// --micro-batches
// micro-batches a step, trained with SGD (forward, backward, one update a
// batch; --forward-only: the forward pass). Steps per second with
// --in-flight micro-batches in flight against the same loop with one at a
// time, measured alternately in the same run. Then the pace: a slow last
// stage fed by a fast first one for --pace-micro-batches micro-batches,
// forward only, and the last stage's worker's peak resident set with 2
// in flight and with all of them in flight.
//
//   bench_pipeline [--micro-batches M] [--rows R] [--width W] [--layers L]
//                  [--in-flight P] [--steps N] [--rounds K]
//                  [--forward-only] [--pace-micro-batches Q]
//
// Last output line: {"steps_per_s": ..., "steps_per_s_one": ...,
// "speedup": ..., "pace_rss_mib": ..., "unpaced_rss_mib": ...}

#include <chrono>
#include <cmath>

#include <CLI/CLI.hpp>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/pipeline.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "bench/cluster_bench.hpp"
#include "json_line.hpp"

using namespace actorflow;
using core::dtype;
using outputs = std::vector<graph::output>;

namespace {

constexpr const char* task0 = "/job:worker/task:0/device:cpu:0";
constexpr const char* task1 = "/job:worker/task:1/device:cpu:0";

core::tensor wave(const core::shape& s, float scale) {
  std::vector<float> v(static_cast<size_t>(s.num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * std::sin(0.61f * static_cast<float>(i));
  return core::tensor::from_vector<float>(s, v);
}

/// A pipeline of two stages, `in_flight` micro-batches at a time, under
/// `prefix`: what to feed and run.
struct piped_model {
  graph::output x, loss;
  std::string target;

  piped_model(graph::scope& root, const std::string& prefix, int64_t width,
              int64_t layers, int64_t micro, int64_t in_flight, bool train) {
    auto s = root.sub(prefix);
    x = graph::placeholder(s.sub("x"), dtype::float32, {-1, width});
    std::vector<graph::output> weights;
    std::vector<graph::pipeline_stage> stages;
    for (const char* device : {task0, task1}) {
      std::vector<graph::output> w;
      for (int64_t l = 0; l < layers; ++l)
        w.push_back(
          graph::variable(s.sub("w" + std::to_string(weights.size() + w.size()))
                            .with_device(device),
                          graph::constant(s, wave({width, width}, 0.03f))));
      weights.insert(weights.end(), w.begin(), w.end());
      stages.push_back({device, [w](const graph::scope& at, const outputs& v) {
                          auto h = v[0];
                          for (const auto& wl : w)
                            h = graph::tanh(at, graph::matmul(at, h, wl));
                          return outputs{h};
                        }});
    }
    graph::pipeline_options o;
    o.micro_batches = micro;
    o.parallel_iterations = in_flight;
    auto y = graph::pipeline(s, stages, {x}, o);
    bench::check(s.status());
    auto at = s.with_device(task1);
    loss = graph::reduce_mean(at, graph::square(at, y.at(0)), {0, 1});
    if (train) {
      graph::optimizer sgd;
      sgd.learning_rate = 0.01;
      target = graph::minimize(s, loss, weights, sgd).name;
    }
    bench::check(s.status());
  }
};

} // namespace

int main(int argc, char** argv) {
  int64_t micro = 16, rows = 64, width = 1024, layers = 2, in_flight = 3;
  int64_t pace_micro = 64;
  int steps = 5, rounds = 3;
  bool forward_only = false;
  CLI::App app{"P11: steps per second of a two-stage pipeline over two "
               "worker processes, micro-batches in flight against one at a "
               "time"};
  app.add_option("--micro-batches", micro, "Micro-batches a step")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--rows", rows, "Rows of a micro-batch")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--width", width, "Width of both layers")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--layers", layers, "Layers of each stage")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--in-flight", in_flight, "Micro-batches in flight")
    ->capture_default_str()
    ->check(CLI::Range(2, 64));
  app.add_option("--steps", steps, "Steps a round")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "Rounds, alternating; the median counts")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_flag("--forward-only", forward_only,
               "Time the forward pass only (no gradient, no update)");
  app
    .add_option("--pace-micro-batches", pace_micro,
                "Micro-batches of the pacing run (0: skip it)")
    ->capture_default_str()
    ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  bench::cluster_client cluster{{{"worker", 2, 1, 1, {}, {}, {}}}};
  graph::scope root{cluster.engine().context().ops()};
  piped_model piped{root,  "piped",   width,        layers,
                    micro, in_flight, !forward_only};
  piped_model one{root, "one", width, layers, micro, 1, !forward_only};
  auto init = root.initializer().name;
  actors::session sess{cluster.engine()};
  bench::check(sess.extend(root.graph_def()));
  std::vector<core::tensor> out;
  bench::check(sess.run({}, {}, {init}, &out));
  auto batch = wave({micro * rows, width}, 1.0f);
  auto time = [&](const piped_model& m) {
    std::vector<std::string> targets;
    if (!m.target.empty())
      targets.push_back(m.target);
    return bench::us_per_step(sess, {{m.x.name(), batch}}, {m.loss.name()},
                              targets, steps, 1);
  };
  std::vector<double> fast, slow;
  for (int r = 0; r < rounds; ++r) {
    fast.push_back(time(piped));
    slow.push_back(time(one));
    std::printf("round %d: %.1f ms a step with %lld in flight, %.1f ms with "
                "one\n",
                r + 1, fast.back() / 1e3, static_cast<long long>(in_flight),
                slow.back() / 1e3);
    std::fflush(stdout);
  }
  std::sort(fast.begin(), fast.end());
  std::sort(slow.begin(), slow.end());
  double us_fast = fast[fast.size() / 2], us_slow = slow[slow.size() / 2];

  // The pace: the first stage a plain copy, the last one product after
  // another; every micro-batch's rows are 256 KiB.
  double paced = -1, unpaced = -1;
  if (pace_micro > 0) {
    auto run_pace = [&](int64_t flight, int worker_index) {
      bench::cluster_client pair{{{"worker", 2, 1, 1, {}, {}, {}}}};
      graph::scope s{pair.engine().context().ops()};
      auto x = graph::placeholder(s.sub("x"), dtype::float32, {-1, 256});
      auto w = graph::constant(s.with_device(task1), wave({256, 256}, 0.03f));
      graph::pipeline_options o;
      o.micro_batches = pace_micro;
      o.parallel_iterations = flight;
      auto copy = [](const graph::scope& at, const outputs& v) {
        return outputs{graph::identity(at, v[0])};
      };
      auto slow_stage = [&](const graph::scope& at, const outputs& v) {
        auto h = v[0];
        for (int k = 0; k < 8; ++k)
          h = graph::tanh(at, graph::matmul(at, h, w));
        return outputs{graph::reduce_sum(at, h, {1}, true)};
      };
      auto y = graph::pipeline(s, {{task0, copy}, {task1, slow_stage}}, {x}, o);
      bench::check(s.status());
      actors::session ps{pair.engine()};
      bench::check(ps.extend(s.graph_def()));
      std::vector<core::tensor> r;
      bench::check(ps.run({{x.name(), wave({pace_micro * 256, 256}, 1.0f)}},
                          {y.at(0).name()}, {}, &r));
      return bench::peak_rss_mib(pair.pid(static_cast<size_t>(worker_index)));
    };
    paced = run_pace(2, 1);
    unpaced = run_pace(pace_micro, 1);
    std::printf("pace: %lld micro-batches of 256 KiB into a slow last stage: "
                "its worker's peak resident set %.1f MiB with 2 in flight, "
                "%.1f MiB with all in flight\n",
                static_cast<long long>(pace_micro), paced, unpaced);
  }
  std::printf("%.1f ms a step with %lld micro-batches in flight, %.1f ms one "
              "at a time (%lld micro-batches of %lld x %lld, %s)\n",
              us_fast / 1e3, static_cast<long long>(in_flight), us_slow / 1e3,
              static_cast<long long>(micro), static_cast<long long>(rows),
              static_cast<long long>(width),
              forward_only ? "forward" : "forward, backward and update");
  bench::print_json_line({{"steps_per_s", bench::rounded(1e6 / us_fast, 2)},
                          {"steps_per_s_one", bench::rounded(1e6 / us_slow, 2)},
                          {"speedup", bench::rounded(us_slow / us_fast, 2)},
                          {"pace_rss_mib", bench::rounded(paced, 1)},
                          {"unpaced_rss_mib", bench::rounded(unpaced, 1)}});
  return 0;
}
