#pragma once

// Shared by the kernel benchmarks: timing and building one kernel.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "common/kernel_runner.hpp"

namespace actorflow::bench {

/// Calls `f` until `seconds` have passed (at least 3 times, after one
/// warm-up call); returns the best time of one call in seconds.
template <class F>
double best_time(F&& f, double seconds) {
  using clock_type = std::chrono::steady_clock;
  f();
  double best = 1e30, total = 0;
  for (int i = 0; i < 3 || total < seconds; ++i) {
    auto t0 = clock_type::now();
    f();
    double dt = std::chrono::duration<double>(clock_type::now() - t0).count();
    best = std::min(best, dt);
    total += dt;
  }
  return best;
}

/// Adds --threads and --seconds, the options every kernel benchmark has.
inline void add_common_options(CLI::App& app, int* threads, double* seconds) {
  app.add_option("--threads", *threads, "Threads of the device and OpenBLAS")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
  app.add_option("--seconds", *seconds, "Seconds of repetitions per figure")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
}

/// Builds `op` on `runner` or exits with the error: benchmarks are
/// programs, and a kernel that cannot be built ends them.
inline std::unique_ptr<test::kernel_runner::prepared>
prepare_or_exit(test::kernel_runner& runner, const std::string& op,
                core::attr_map attrs, size_t num_inputs) {
  std::unique_ptr<test::kernel_runner::prepared> k;
  if (auto st = runner.prepare(op, std::move(attrs), num_inputs, &k);
      !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    std::exit(1);
  }
  return k;
}

} // namespace actorflow::bench
