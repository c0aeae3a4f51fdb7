// A soak of the cluster runtime: 10^4 training steps of the Fashion-MNIST
// MLP of `actorflow train` over a ps process and two worker processes,
// two sessions of this client driving one worker each, concurrently
// (between-graph replication, asynchronous updates of the variables on
// ps), on synthetic data. The resident set of every process is taken
// after a warm-up and at the end. The warm-up (2500 steps per replica)
// runs past the bounded memories of the runtime -- each worker remembers
// its last 4096 ended steps, each queue its last 4096 cancelled ones --
// and the allocator's growth to its working set: with 200 steps of
// warm-up the ps grew 12 % and then stayed flat (docs/performance.md).
//
//   bench_soak [--steps 10000] [--warmup 2500]
//
// Last output line: {"steps": ..., "steps_per_s": ...,
// "max_rss_growth_pct": ..., "errors": ...}

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include <CLI/CLI.hpp>

#include "actorflow/actors/queue_runner.hpp"
#include "actorflow/graph/placement.hpp"
#include "bench/cluster_bench.hpp"
#include "common/process_memory.hpp"
#include "json_line.hpp"
#include "models/fashion/fashion_training.hpp"

using namespace actorflow;

namespace {

/// 4096 random images and labels: the soak measures the runtime, not
/// learning.
apps::fashion_data synthetic_data() {
  constexpr int64_t n = 4096;
  std::mt19937 gen{7};
  std::vector<uint8_t> pixels(static_cast<size_t>(n * 784)), labels(n);
  for (auto& p : pixels)
    p = static_cast<uint8_t>(gen() % 256);
  for (auto& l : labels)
    l = static_cast<uint8_t>(gen() % 10);
  apps::fashion_data d;
  d.train_images = core::tensor::from_vector<uint8_t>({n, 784}, pixels);
  d.train_labels = core::tensor::from_vector<uint8_t>({n}, labels);
  return d;
}

/// One replica: the training graph placed on ps and worker `k`, its data
/// there, and a queue runner feeding it.
struct replica {
  apps::fashion_training g;
  actors::session sess;
  std::unique_ptr<actors::queue_runner> runner;

  replica(actors::engine& e, const graph::scope& s,
          const apps::fashion_data& data, int k, bool chief)
    : g(s, data.train_images.shape().dim(0),
        [] {
          apps::training_options o;
          o.batch = 64;
          return o;
        }()),
      sess(e) {
    auto def = s.graph_def();
    graph::graph_types types;
    bench::check(graph::validate(def, e.context().ops(), &types));
    bench::check(graph::place_replica(
      def, types, "/job:ps/task:0/device:cpu:0",
      "/job:worker/task:" + std::to_string(k) + "/device:cpu:0", "data/"));
    bench::check(sess.extend(def));
    std::vector<core::tensor> out;
    bench::check(
      sess.run(g.data_feeds(data), {}, {chief ? g.init : g.data_init}, &out));
    runner = std::make_unique<actors::queue_runner>(
      sess, std::vector<std::string>{g.fill}, g.close, g.cancel);
    runner->start();
  }

  ~replica() {
    runner->stop();
  }
};

} // namespace

int main(int argc, char** argv) {
  int steps = 10000, warmup = 2500;
  CLI::App app{"A soak of the cluster runtime: training steps over a ps "
               "and two worker processes; resident sets before and after"};
  app.add_option("--steps", steps, "Steps in all (both replicas)")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "Steps per replica before measuring")
    ->capture_default_str()
    ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  bench::cluster_client cluster{
    {{"ps", 1, 1, 1, {}, {}, {}}, {"worker", 2, 1, 1, {}, {}, {}}}};
  auto data = synthetic_data();
  // Two scopes: each replica's own copy of the graph (same names, so the
  // variables on ps are shared; data and queues are each worker's own).
  graph::scope s0{cluster.engine().context().ops()};
  graph::scope s1{cluster.engine().context().ops()};
  replica r0{cluster.engine(), s0, data, 0, true};
  replica r1{cluster.engine(), s1, data, 1, false};
  std::atomic<int> errors{0};
  auto drive = [&](replica& r, int n) {
    std::vector<core::tensor> out;
    for (int i = 0; i < n; ++i) {
      auto st = r.sess.run({}, {r.g.loss}, {r.g.train}, &out);
      if (!st.is_ok() && errors++ == 0)
        std::fprintf(stderr, "%s\n", st.to_string().c_str());
    }
  };
  auto both = [&](int n) {
    std::thread other{[&] { drive(r1, n); }};
    drive(r0, n);
    other.join();
  };
  both(warmup);
  // Every process: this client, ps, worker 0, worker 1.
  std::vector<pid_t> pids{0, cluster.pid(0), cluster.pid(1), cluster.pid(2)};
  const char* names[] = {"client", "ps:0", "worker:0", "worker:1"};
  std::vector<long> before;
  for (auto p : pids)
    before.push_back(test::rss_kib(p));
  auto t0 = std::chrono::steady_clock::now();
  auto per_replica = steps / 2;
  // In rounds, so that progress shows.
  constexpr int rounds = 10;
  for (int r = 0; r < rounds; ++r) {
    both(per_replica / rounds);
    std::fprintf(stderr, "%d/%d steps, %d errors\n",
                 (r + 1) * 2 * (per_replica / rounds), steps, errors.load());
  }
  auto seconds
    = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
        .count();
  double worst = 0;
  for (size_t i = 0; i < pids.size(); ++i) {
    auto after = test::rss_kib(pids[i]);
    auto growth = 100.0 * double(after - before[i]) / double(before[i]);
    worst = std::max(worst, growth);
    std::printf("%-9s RSS %7.1f MB -> %7.1f MB (%+.2f %%)\n", names[i],
                double(before[i]) / 1024, double(after) / 1024, growth);
  }
  auto done = 2 * (per_replica / rounds) * rounds;
  bench::print_json_line(
    {{"steps", done},
     {"steps_per_s", bench::rounded(double(done) / seconds, 1)},
     {"max_rss_growth_pct", bench::rounded(worst, 2)},
     {"errors", errors.load()}});
  return errors.load() == 0 ? 0 : 1;
}
