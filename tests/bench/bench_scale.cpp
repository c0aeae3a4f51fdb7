// The control plane of a large cluster: N `actorflow worker` processes on
// this machine (one thread each, ports the OS picks), a session in this
// process connected to all of them, and a trivial step fanned out to every
// worker and gathered on task 0. Measured: the time until all listen; the
// connect and the first run (compile, register with all N, one step); the
// steady step and the CPU time per step of this process (the master and
// the session run here), of a worker and of task 0; the resident,
// anonymous and proportional memory; an idle cluster's CPU and the bytes
// it sends over loopback per second; and the time from `kill -9` of one
// worker to the failing step that names it (docs/scale.md).
//
//   bench_scale [--workers N] [--steps S] [--idle-seconds T] [--no-kill]
//               [--heartbeat-ms H] [--cli PATH]
//
// Last output line: {"workers": N, "listen_s": ..., "connect_s": ...,
// "first_run_s": ..., "step_us": ..., "master_cpu_us_per_step": ...,
// "master_cpu_us_per_worker": ..., ...}

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>

#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "bench/cluster_bench.hpp"
#include "json_line.hpp"

using namespace actorflow;

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// A field of `/proc/PID/FILE` given as `key: value kB` (or a plain
/// count), in its own units; -1 if absent.
double proc_field(pid_t pid, const char* file, const std::string& key) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/" + file};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0)
      return std::stod(line.substr(key.size() + 1));
  return -1;
}

/// CPU seconds process `pid`'s threads have run so far: the first figure
/// of each `/proc/PID/task/TID/schedstat`, in nanoseconds (`/proc/PID/stat`
/// counts 10 ms ticks, too coarse for an idle process).
double cpu_seconds(pid_t pid) {
  namespace fs = std::filesystem;
  double ns = 0;
  std::error_code ec;
  for (const auto& t :
       fs::directory_iterator{"/proc/" + std::to_string(pid) + "/task", ec}) {
    std::ifstream in{t.path() / "schedstat"};
    double x = 0;
    if (in >> x)
      ns += x;
  }
  return ns / 1e9;
}

/// Bytes this machine has sent over loopback so far (`/proc/net/dev`):
/// the cluster's traffic on a machine otherwise quiet.
double loopback_bytes_sent() {
  std::ifstream in{"/proc/net/dev"};
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos
        || line.substr(0, colon).find("lo") == std::string::npos)
      continue;
    // Received: 8 fields, then transmitted bytes.
    std::istringstream fields{line.substr(colon + 1)};
    double x = 0;
    for (int i = 0; i < 9; ++i)
      fields >> x;
    return x;
  }
  return -1;
}

/// CPU seconds this process has used so far (user + system).
double own_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

/// The median of a reading over the processes `pids`.
template <class F>
double median_over(const std::vector<pid_t>& pids, F reading) {
  std::vector<double> xs;
  for (auto p : pids)
    xs.push_back(reading(p));
  return bench::median(std::move(xs));
}

} // namespace

int main(int argc, char** argv) {
  int workers = 16;
  int steps = 200;
  double idle_seconds = 10;
  bool no_kill = false;
  std::string cli = ACTORFLOW_CLI;
  int heartbeat_ms = 0;
  CLI::App app{"The control plane of N worker processes: listen, connect, "
               "register, a fan-out step, idle cost, a killed worker"};
  app.add_option("--workers", workers, "Worker processes")
    ->capture_default_str()
    ->check(CLI::Range(2, 4096));
  app.add_option("--steps", steps, "Steps per round of the steady step")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app
    .add_option("--idle-seconds", idle_seconds,
                "How long the idle cluster is watched")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_flag("--no-kill", no_kill, "Skip killing a worker at the end");
  app
    .add_option("--heartbeat-ms", heartbeat_ms,
                "The cluster's heartbeat (timeouts.heartbeat_ms; the peer "
                "timeout is 15 of them; default: the cluster file's)")
    ->check(CLI::Range(100, 60000));
  app
    .add_option("--cli", cli,
                "The actorflow program the workers run (another build's, "
                "for an A/B)")
    ->capture_default_str()
    ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);

  auto t0 = clock_type::now();
  test::worker_processes procs{
    cli,
    {test::job_tasks{"worker", workers, 1, 1, {}, {}, {}}},
    heartbeat_ms == 0
      ? std::string{}
      : "timeouts:\n  heartbeat_ms: " + std::to_string(heartbeat_ms)
          + "\n  peer_ms: " + std::to_string(15 * heartbeat_ms) + "\n"};
  if (!procs.ok()) {
    std::fprintf(stderr, "%s\n", procs.error().c_str());
    return 1;
  }
  double listen_s = seconds_since(t0);
  std::printf("%d workers listening after %.2f s\n", workers, listen_s);
  std::fflush(stdout);
  std::vector<pid_t> pids;
  for (int i = 0; i < workers; ++i)
    pids.push_back(procs.pid(static_cast<size_t>(i)));

  actors::cluster_spec spec;
  bench::check(procs.client_spec(&spec));
  auto o = actors::client_options(spec);
  o.num_cpu_devices = 1;
  o.scheduler_threads = 1;
  o.threads_per_device = 1;
  actors::engine client{o};
  bench::check(client.init_status());
  t0 = clock_type::now();
  bench::check(actors::connect_cluster(client, spec));
  double connect_s = seconds_since(t0);
  std::printf("connected to all in %.2f s\n", connect_s);
  std::fflush(stdout);

  // A value fed here, an Identity of it on every task, their sum on task 0.
  graph::scope s;
  auto x = graph::placeholder(s.sub("x"), core::dtype::float32, {});
  std::vector<graph::output> ys;
  for (int i = 0; i < workers; ++i) {
    auto on = s.with_device("/job:worker/task:" + std::to_string(i)
                            + "/device:cpu:0");
    ys.push_back(graph::identity(on.sub("y" + std::to_string(i)), x));
  }
  auto sum = graph::add_n(
    s.with_device("/job:worker/task:0/device:cpu:0").sub("sum"), ys);
  bench::check(s.status());
  actors::session sess{client};
  bench::check(sess.extend(s.graph_def()));
  actors::feed_list feeds{{x.name(), core::tensor::scalar<float>(1.0f)}};
  std::vector<core::tensor> out;
  t0 = clock_type::now();
  bench::check(sess.run(feeds, {sum.name()}, {}, &out));
  double first_s = seconds_since(t0);
  if (out.at(0).scalar_value<float>() != static_cast<float>(workers)) {
    std::fprintf(stderr, "the sum is %g, not %d\n",
                 static_cast<double>(out[0].scalar_value<float>()), workers);
    return 1;
  }
  std::printf("first run (compile, register with all, step) %.3f s\n", first_s);
  std::fflush(stdout);

  // Rounds of `steps` steps: the median round's time and this process's
  // CPU per step.
  std::vector<double> us, cpu_us;
  for (int i = 0; i < 5; ++i)
    bench::check(sess.run(feeds, {sum.name()}, {}, &out));
  // The workers' CPU over all rounds: task 0 (which gathers) apart.
  auto workers_cpu = [&] {
    double c = 0;
    for (size_t i = 1; i < pids.size(); ++i)
      c += cpu_seconds(pids[i]);
    return c;
  };
  auto workers0 = workers_cpu(), gather0 = cpu_seconds(pids[0]);
  for (int round = 0; round < 5; ++round) {
    auto cpu0 = own_cpu_seconds();
    auto r0 = clock_type::now();
    for (int i = 0; i < steps; ++i)
      bench::check(sess.run(feeds, {sum.name()}, {}, &out));
    us.push_back(seconds_since(r0) * 1e6 / steps);
    cpu_us.push_back((own_cpu_seconds() - cpu0) * 1e6 / steps);
  }
  double worker_us
    = (workers_cpu() - workers0) * 1e6 / (5.0 * steps) / (workers - 1);
  double gather_us = (cpu_seconds(pids[0]) - gather0) * 1e6 / (5.0 * steps);
  double step_us = bench::median(us), master_us = bench::median(cpu_us);
  std::printf("steady step %.0f us, master CPU %.0f us per step (%.1f per "
              "worker); a worker's CPU %.0f us per step, task 0's %.0f\n",
              step_us, master_us, master_us / workers, worker_us, gather_us);

  // Memory after the steps: resident set, its anonymous part, and the
  // proportional set (shared library pages divided among their users).
  auto self = ::getpid();
  double client_rss = proc_field(self, "status", "VmRSS") / 1024;
  double rss = median_over(
    pids, [](pid_t p) { return proc_field(p, "status", "VmRSS") / 1024; });
  double anon = median_over(
    pids, [](pid_t p) { return proc_field(p, "status", "RssAnon") / 1024; });
  double pss = median_over(
    pids, [](pid_t p) { return proc_field(p, "smaps_rollup", "Pss") / 1024; });
  std::printf("resident: client %.1f MiB; a worker %.1f MiB (anonymous %.1f, "
              "proportional %.1f)\n",
              client_rss, rss, anon, pss);

  // The idle cluster: every process's CPU and the bytes sent over
  // loopback in the window (their heartbeats).
  auto all = pids;
  all.push_back(self);
  auto cpu_total = [&] {
    double c = 0;
    for (auto p : all)
      c += cpu_seconds(p);
    return c;
  };
  auto written = loopback_bytes_sent;
  auto c0 = cpu_total();
  auto w0 = written();
  std::this_thread::sleep_for(std::chrono::duration<double>(idle_seconds));
  double idle_core_pct = (cpu_total() - c0) / idle_seconds * 100;
  double idle_bytes_s = (written() - w0) / idle_seconds;
  std::printf("idle: %.2f %% of one core, %.0f bytes/s over loopback\n",
              idle_core_pct, idle_bytes_s);
  std::fflush(stdout);

  nlohmann::ordered_json line{
    {"workers", workers},
    {"listen_s", bench::rounded(listen_s, 3)},
    {"connect_s", bench::rounded(connect_s, 3)},
    {"first_run_s", bench::rounded(first_s, 3)},
    {"step_us", bench::rounded(step_us, 0)},
    {"master_cpu_us_per_step", bench::rounded(master_us, 0)},
    {"master_cpu_us_per_worker", bench::rounded(master_us / workers, 2)},
    {"worker_cpu_us_per_step", bench::rounded(worker_us, 1)},
    {"task0_cpu_us_per_step", bench::rounded(gather_us, 0)},
    {"client_rss_mib", bench::rounded(client_rss, 1)},
    {"worker_rss_mib", bench::rounded(rss, 1)},
    {"worker_anon_mib", bench::rounded(anon, 1)},
    {"worker_pss_mib", bench::rounded(pss, 1)},
    {"idle_core_pct", bench::rounded(idle_core_pct, 2)},
    {"idle_bytes_per_s", bench::rounded(idle_bytes_s, 0)}};

  if (!no_kill) {
    // The last worker dies; the next step fails, naming it.
    auto victim = static_cast<size_t>(workers - 1);
    auto name = procs.spec().tasks[victim].name();
    ::kill(procs.pid(victim), SIGKILL);
    t0 = clock_type::now();
    auto st = sess.run(feeds, {sum.name()}, {}, &out);
    for (int i = 0; st.is_ok() && i < 100000; ++i)
      st = sess.run(feeds, {sum.name()}, {}, &out);
    double kill_s = seconds_since(t0);
    bool named = st.to_string().find(name) != std::string::npos;
    std::printf("killed %s: the step failed after %.3f s: %s\n", name.c_str(),
                kill_s, st.to_string().c_str());
    line["kill_to_error_s"] = bench::rounded(kill_s, 3);
    line["error_names_task"] = named;
  }
  bench::print_json_line(line);
  return 0;
}
