#pragma once

// Shared by the cluster benchmarks: real `actorflow worker` processes on
// loopback, a client engine connected to them, and steps timed through a
// session.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/session.hpp"
#include "common/test_pki.hpp"
#include "common/worker_processes.hpp"

namespace actorflow::bench {

/// Prints `st` and ends the benchmark when it is an error.
/// The options of a benchmark over worker processes: `--steps` (what a
/// step is: `steps_help`) and `--tls`.
inline void add_cluster_options(CLI::App& app, int* steps,
                                const std::string& steps_help, bool* tls) {
  app.add_option("--steps", *steps, steps_help)
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_flag("--tls", *tls,
               "Mutual TLS between the processes, the bulk path's included "
               "(certificates made for the run)");
}

inline void check(const core::status& st) {
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    std::exit(1);
  }
}

/// The flags that give workers a bulk path threshold (none for -1).
inline std::vector<std::string> bulk_args(int64_t min_bytes) {
  if (min_bytes < 0)
    return {};
  return {"--bulk-min-bytes", std::to_string(min_bytes)};
}

/// Worker processes and a client engine connected to them; with `tls`,
/// every connection is mutual TLS with certificates made for the run.
class cluster_client {
public:
  explicit cluster_client(std::vector<test::job_tasks> jobs, bool tls = false)
    : pki_(tls ? make_pki(jobs) : nullptr),
      procs_(ACTORFLOW_CLI, std::move(jobs), tls ? pki_->yaml() : "") {
    if (!procs_.ok()) {
      std::fprintf(stderr, "%s\n", procs_.error().c_str());
      std::exit(1);
    }
    actors::cluster_spec spec;
    check(procs_.client_spec(&spec));
    auto o = actors::client_options(spec);
    o.num_cpu_devices = 1;
    client_ = std::make_unique<actors::engine>(o);
    check(client_->init_status());
    check(actors::connect_cluster(*client_, spec));
  }

  actors::engine& engine() {
    return *client_;
  }

  const actors::cluster_spec& spec() const {
    return procs_.spec();
  }

  /// The process id of task `i`.
  pid_t pid(size_t i) const {
    return procs_.pid(i);
  }

private:
  /// A CA and certificates for every task of `jobs` and the client.
  static std::unique_ptr<test::test_pki>
  make_pki(const std::vector<test::job_tasks>& jobs) {
    auto pki = std::make_unique<test::test_pki>();
    pki->sign("client");
    for (const auto& j : jobs)
      for (int i = 0; i < j.tasks; ++i)
        pki->sign(j.job + "-" + std::to_string(i));
    if (!pki->skip_reason().empty()) {
      std::fprintf(stderr, "%s\n", pki->skip_reason().c_str());
      std::exit(1);
    }
    return pki;
  }

  std::unique_ptr<test::test_pki> pki_;
  test::worker_processes procs_;
  std::unique_ptr<actors::engine> client_;
};

/// The peak resident set of process `pid` (VmHWM), in MiB; -1 if unknown.
inline double peak_rss_mib(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stod(line.substr(6)) / 1024.0;
  return -1;
}

/// The median of `xs` (the upper one of an even count); `xs` not empty.
inline double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

/// Microseconds per step of `n` sequential steps, the median of `rounds`.
inline double us_per_step(actors::session& sess, const actors::feed_list& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets, int n,
                          int rounds = 5) {
  std::vector<core::tensor> out;
  for (int i = 0; i < 5; ++i)
    check(sess.run(feeds, fetches, targets, &out));
  std::vector<double> us;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      check(sess.run(feeds, fetches, targets, &out));
    us.push_back(std::chrono::duration<double, std::micro>(
                   std::chrono::steady_clock::now() - t0)
                   .count()
                 / n);
  }
  return median(std::move(us));
}

} // namespace actorflow::bench
