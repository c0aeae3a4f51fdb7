#pragma once

// Chrome traces of chosen training steps.

#include <cstdint>
#include <string>
#include <utility>

#include "actorflow/actors/chrome_trace.hpp"
#include "actorflow/actors/session.hpp"

namespace actorflow::apps {

/// Traces the training steps `--trace-steps` asks for and writes their
/// Chrome trace once the last of them ran.
class step_tracer {
public:
  /// Traces steps [steps.first, steps.second) into `path` (empty: none).
  step_tracer(std::string path, std::pair<int64_t, int64_t> steps);

  /// The options of training step `step`'s runs.
  actors::run_options options(int64_t step) const;

  /// Keeps what a run of step `step` recorded.
  void add(int64_t step, actors::run_metadata& md);

  /// Training step `step` is done: writes the trace after the last one.
  core::status step_done(int64_t step);

  /// Says so when the run ended before the steps to trace.
  void warn_if_untraced(int64_t steps_run) const;

private:
  bool traces(int64_t step) const {
    return !path_.empty() && step >= first_ && step < end_;
  }

  std::string path_;
  int64_t first_;
  int64_t end_;
  actors::chrome_trace trace_;
};

/// Ends training step `step`: runs `after_step` (a synchronous replica's
/// part of the step; none if empty), traced as the step is, then tells
/// `tracer` the step is done.
core::status finish_step(actors::session& sess, step_tracer& tracer,
                         int64_t step, const std::string& after_step);

} // namespace actorflow::apps
