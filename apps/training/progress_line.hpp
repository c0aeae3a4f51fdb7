#pragma once

// The progress of an epoch on standard error.

#include <chrono>
#include <cstdint>
#include <string>

#include "training/training_gauges.hpp"

namespace actorflow::apps {

/// The progress of an epoch on standard error: one line redrawn at most ten
/// times a second on a terminal, else a line per tenth of the epoch (logs,
/// CI).
class progress_line {
public:
  /// `unit` names what `show`'s rate counts ("samples/s").
  progress_line(bool enabled, bool terminal, std::string unit = "samples/s");

  /// Step `step` of `steps` of epoch `epoch` of `epochs` is done.
  void show(int epoch, int epochs, int64_t step, int64_t steps, double loss,
            double rate, double eta_s);

  /// Ends a redrawn line.
  void end_line();

  /// Also sets `gauges` (if not null) after each step, quiet or not.
  void report_to(training_gauges* gauges) {
    gauges_ = gauges;
  }

private:
  using clock_type = std::chrono::steady_clock;

  bool enabled_;
  bool terminal_;
  std::string unit_;
  training_gauges* gauges_ = nullptr;
  clock_type::time_point last_ = clock_type::now();
};

/// The seconds since `t`.
double seconds_since(std::chrono::steady_clock::time_point t);

/// `m:ss` of `seconds`.
std::string clock_text(double seconds);

} // namespace actorflow::apps
