// `actorflow train` in one process, and what its jobs share there and in
// a cluster: the engine's options, resuming from a checkpoint, the word
// when nothing is left to train.

#include "training/train.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/devices/gpu.hpp"
#include "common/flags.hpp"
#include "training/training_job.hpp"

namespace actorflow::apps {

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "actorflow train: %s\n", what.c_str());
  return 1;
}

} // namespace

int train_fail(const std::string& what) {
  return fail(what);
}

std::string engine_options_from(const train_options& o,
                                actors::engine_options* eo) {
  *eo = with_threads(*eo, o.threads);
  if (o.device == "gpu") {
    if (devices::visible_gpus() == 0)
      return devices::cuda_enabled()
               ? "--device gpu: no GPU is visible to CUDA"
               : "--device gpu: this actorflow was built without CUDA "
                 "(configure with nvcc on PATH)";
    eo->default_device = "gpu:0";
  }
  return {};
}

void say_nothing_to_train(const train_options& o, int64_t step,
                          int64_t steps_per_epoch) {
  if (!o.quiet)
    std::fprintf(
      stderr,
      "nothing left to train: the checkpoint is at step %lld, "
      "the end of epoch %lld of --epochs %d; a larger --epochs "
      "trains on from it\n",
      static_cast<long long>(step),
      static_cast<long long>(step / std::max<int64_t>(steps_per_epoch, 1)),
      o.epochs);
}

core::status restore_for_resume(const train_options& o,
                                actors::checkpoint_manager& checkpoints,
                                int64_t* step) {
  if (!o.resume) {
    if (!checkpoints.steps().empty() && !o.quiet)
      std::fprintf(stderr,
                   "starting afresh: the checkpoints in %s will be replaced "
                   "(--resume continues from them)\n",
                   checkpoints.directory().c_str());
    return core::status::ok();
  }
  using fit = actors::checkpoint_manager::fit;
  std::vector<std::string> skipped;
  auto st = checkpoints.restore_latest(
    step, o.restore_what_fits ? fit::what_fits : fit::all, &skipped);
  if (st.code() == core::errc::not_found) {
    std::fprintf(stderr, "no checkpoint in %s: starting afresh\n",
                 checkpoints.directory().c_str());
    return core::status::ok();
  }
  if (st.code() == core::errc::failed_precondition)
    return core::status{
      st.code(),
      st.message()
        + "\n  the model or optimizer differs from the one that wrote it: "
          "train with the same flags, add --restore-what-fits to restore "
          "what fits and initialise the rest, or give another "
          "--checkpoint-dir"};
  ACTORFLOW_RETURN_IF_ERROR(st);
  std::fprintf(stderr, "resumed from %s at step %lld\n",
               checkpoints.path(*step).c_str(), static_cast<long long>(*step));
  for (const auto& name : skipped)
    std::fprintf(stderr,
                 "  not in the checkpoint or different there: "
                 "%s (initialised afresh)\n",
                 name.c_str());
  return core::status::ok();
}

int run_train(const train_options& o) {
  if (o.trace_steps.second <= o.trace_steps.first)
    return fail("--trace-steps FIRST:END needs END > FIRST");
  std::unique_ptr<training_job> job;
  if (auto err = make_training_job(o, &job); !err.empty())
    return fail(err);
  if (o.cluster.given())
    return run_train_task(o);
  actors::engine_options eo;
  if (auto err = engine_options_from(o, &eo); !err.empty())
    return fail(err);
  actors::engine e{eo};
  if (!e.init_status().is_ok())
    return fail(e.init_status().to_string());
  auto st = job->load(e, 0, 1);
  if (!st.is_ok())
    return fail(st.to_string());
  graph::scope s{e.context().ops()};
  auto g = job->build(s, 0, {});
  if (!s.ok())
    return fail(s.status().to_string());
  actors::session_options so;
  so.pass_selection = o.passes;
  actors::session sess{e, so};
  std::vector<core::tensor> out;
  st = sess.extend(s.graph_def());
  if (st.is_ok())
    st = sess.run(g.feeds, {}, {g.init}, &out);
  if (!st.is_ok())
    return fail(st.to_string());
  actors::checkpoint_manager checkpoints{sess, g.saver, g.checkpoint_dir,
                                         "model", o.keep};
  int64_t step = 0;
  st = restore_for_resume(o, checkpoints, &step);
  if (!st.is_ok())
    return fail(st.to_string());
  return job->train(sess, o, step, &checkpoints, {}, nullptr);
}

} // namespace actorflow::apps
