#pragma once

// Shared by the cluster benchmarks: real `actorflow worker` processes on
// loopback, a client engine connected to them, and steps timed through a
// session.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/session.hpp"
#include "common/worker_processes.hpp"

namespace actorflow::bench {

/// Prints `st` and ends the benchmark when it is an error.
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

/// Worker processes and a client engine connected to them.
class cluster_client {
public:
  explicit cluster_client(std::vector<test::job_tasks> jobs)
    : procs_(ACTORFLOW_CLI, std::move(jobs)) {
    if (!procs_.ok()) {
      std::fprintf(stderr, "%s\n", procs_.error().c_str());
      std::exit(1);
    }
    actors::engine_options o;
    o.network = true;
    o.num_cpu_devices = 1;
    client_ = std::make_unique<actors::engine>(o);
    check(actors::connect_cluster(*client_, procs_.spec()));
  }

  actors::engine& engine() {
    return *client_;
  }

  const actors::cluster_spec& spec() const {
    return procs_.spec();
  }

private:
  test::worker_processes procs_;
  std::unique_ptr<actors::engine> client_;
};

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
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

} // namespace actorflow::bench
