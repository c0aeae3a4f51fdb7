#pragma once

#include <string>
#include <vector>

#include "actorflow/actors/step_stats.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::actors {

/// Traced steps as a Chrome trace-event file, which Perfetto's UI and
/// chrome://tracing open.
///
/// Each worker is a process of the trace and each of its devices a track
/// (a thread; more than one where firings overlap in time, as slices of a
/// thread must nest) with a slice per node firing; a loop's firings are named
/// with their frame and iteration (`body/add [while:3]`); an arrow goes
/// from each Send to the Recv that took its value. A process "steps"
/// holds a slice per step, from the moment the master sent it out to the
/// moment it had every report back, so every firing lies inside its
/// step's slice. Times are microseconds from the first step's start.
///
/// ~~~
/// actors::chrome_trace trace;
/// actors::run_options opts;
/// opts.trace = actors::trace_level::full;
/// actors::run_metadata md;
/// ACTORFLOW_RETURN_IF_ERROR(sess.run(opts, feeds, fetches, {}, &out, &md));
/// trace.add(md.stats);
/// ACTORFLOW_RETURN_IF_ERROR(trace.write("step.json"));
/// ~~~
class chrome_trace {
public:
  /// Adds one traced step (`run_metadata::stats`).
  void add(step_stats stats);

  /// How many steps were added.
  size_t size() const noexcept {
    return steps_.size();
  }

  /// The trace as JSON text (`{"traceEvents": [...], ...}`).
  std::string to_json() const;

  /// Writes the trace to the file `path`.
  core::status write(const std::string& path) const;

private:
  std::vector<step_stats> steps_;
};

} // namespace actorflow::actors
