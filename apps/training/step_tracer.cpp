// Chrome traces of chosen training steps.

#include "training/step_tracer.hpp"

#include <cstdio>

namespace actorflow::apps {

step_tracer::step_tracer(std::string path, std::pair<int64_t, int64_t> steps)
  : path_(std::move(path)), first_(steps.first), end_(steps.second) {
  // nop
}

actors::run_options step_tracer::options(int64_t step) const {
  actors::run_options ro;
  if (traces(step))
    ro.trace = actors::trace_level::full;
  return ro;
}

void step_tracer::add(int64_t step, actors::run_metadata& md) {
  if (traces(step))
    trace_.add(std::move(md.stats));
}

core::status step_tracer::step_done(int64_t step) {
  if (!traces(step) || step + 1 != end_)
    return core::status::ok();
  ACTORFLOW_RETURN_IF_ERROR(trace_.write(path_));
  std::fprintf(stderr, "\ntrace of steps %lld..%lld written to %s\n",
               static_cast<long long>(first_), static_cast<long long>(end_ - 1),
               path_.c_str());
  return core::status::ok();
}

void step_tracer::warn_if_untraced(int64_t steps_run) const {
  if (!path_.empty() && steps_run < end_)
    std::fprintf(stderr,
                 "no trace written: the run ended at step %lld, before "
                 "--trace-steps %lld:%lld did\n",
                 static_cast<long long>(steps_run),
                 static_cast<long long>(first_), static_cast<long long>(end_));
}

core::status finish_step(actors::session& sess, step_tracer& tracer,
                         int64_t step, const std::string& after_step) {
  if (!after_step.empty()) {
    std::vector<core::tensor> ignored;
    actors::run_metadata md;
    ACTORFLOW_RETURN_IF_ERROR(
      sess.run(tracer.options(step), {}, {}, {after_step}, &ignored, &md));
    tracer.add(step, md);
  }
  return tracer.step_done(step);
}

} // namespace actorflow::apps
