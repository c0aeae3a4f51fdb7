// `actorflow train --cluster F --task T`: between-graph replication as
// TensorFlow 1 did it. Each worker task is a process with its own client:
// it builds the whole training graph (training_job.hpp: Fashion-MNIST's
// classifier or the char-RNN), places the model's variables (and their
// updates) on the ps task and the rest on itself, reads its shard of the
// data, and applies its own gradients to the shared
// variables (asynchronous training, Downpour-style) or, with --sync, adds
// them to accumulators there, whose mean the chief applies once every
// worker has (TensorFlow's SyncReplicasOptimizer). The chief (worker 0)
// initialises the variables, lets the others start, and writes the
// checkpoints. A ps task serves its variables and, on ps:0, ends once
// every worker has said it is done. With --strategy allreduce there is no
// ps: every worker holds the variables and applies the mean of all
// workers' gradients, summed by CollectiveAllReduce rings among them.

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/placement.hpp"
#include "actorflow/graph/queue.hpp"
#include "cluster/metrics_server.hpp"
#include "common/exit_codes.hpp"
#include "common/flags.hpp"
#include "training/train.hpp"
#include "training/training_job.hpp"

namespace actorflow::apps {

namespace {

using core::dtype;

/// The queues on ps:0 by which the workers of a job keep step: the chief
/// puts a token per other worker into `ready` once the variables are
/// initialised; each worker puts one into `done` when it has finished.
struct sync_queues {
  std::string ready_put, ready_take, done_put, all_done;

  /// Adds them to `s` for `workers` workers (the ps task builds the same
  /// queue nodes, so that its session finds the same queues).
  sync_queues(const graph::scope& root, int workers) {
    auto s = root.sub("sync").with_device("/job:ps/task:0/device:cpu:0");
    graph::queue::options o{{dtype::int32}, {core::shape{}}, -1};
    auto ready = graph::queue::fifo(s.sub("ready"), o);
    auto done = graph::queue::fifo(s.sub("done"), o);
    if (workers > 1)
      ready_put = ready
                    .enqueue_many(s.sub("ready_put"),
                                  {graph::fill(s, {workers - 1},
                                               graph::constant(s, int32_t{1}))})
                    .name;
    ready_take = ready.dequeue(s.sub("ready_take"))[0].name();
    done_put
      = done.enqueue(s.sub("done_put"), {graph::constant(s, int32_t{1})}).name;
    all_done = done.dequeue_many(s.sub("all_done"), workers)[0].name();
  }
};

/// Waits for SIGTERM or SIGINT (blocked in every thread beforehand).
void wait_for_signal() {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  int sig = 0;
  sigwait(&stop, &sig);
}

/// Serves `e`'s metrics, and a trainer's `gauges` (if not null), on the
/// task's host with --metrics-port, if given, in `out`; false (having said
/// why) if it cannot.
bool serve_metrics(const train_options& o, actors::engine& e,
                   const actors::cluster_task& task,
                   std::unique_ptr<metrics_server>* out,
                   const training_gauges* gauges = nullptr) {
  if (o.metrics_port < 0)
    return true;
  auto st = metrics_server::start(
    task.bind_host(), static_cast<uint16_t>(o.metrics_port),
    [&e, gauges] {
      return e.metrics_text() + (gauges != nullptr ? gauges->render() : "");
    },
    out);
  if (!st.is_ok()) {
    train_fail(st.to_string());
    return false;
  }
  if (!o.quiet)
    std::fprintf(stderr, "%s metrics at http://%s:%u/metrics\n",
                 task.name().c_str(), task.bind_host().c_str(),
                 static_cast<unsigned>((*out)->port()));
  return true;
}

/// Serves `task`'s devices (holding `what`) in `e` at its address, and
/// its metrics (with a trainer's `gauges`) in `metrics`; false (having
/// said why) if it cannot.
bool serve(actors::engine& e, const actors::cluster_task& task,
           const char* what, const train_options& o,
           std::unique_ptr<metrics_server>* metrics,
           const training_gauges* gauges = nullptr) {
  bool quiet = o.quiet;
  if (!e.init_status().is_ok()) {
    train_fail(e.init_status().to_string());
    return false;
  }
  uint16_t port = 0;
  auto st = actors::serve_worker(e, task.bind_host(), task.bind_port(), &port);
  if (!st.is_ok()) {
    train_fail(st.to_string());
    return false;
  }
  if (!quiet)
    std::fprintf(stderr, "%s serves %s on %s:%u\n", task.name().c_str(), what,
                 task.bind_host().c_str(), static_cast<unsigned>(port));
  return serve_metrics(o, e, task, metrics, gauges);
}

/// An expert task, or a ps task but the first: serves until a signal.
int serve_until_signal(const actors::cluster_spec& spec,
                       const actors::cluster_task& task, const char* what,
                       const train_options& o) {
  actors::engine e{actors::worker_options(task, spec)};
  std::unique_ptr<metrics_server> metrics;
  if (!serve(e, task, what, o, &metrics))
    return cannot_start_exit;
  wait_for_signal();
  return 0;
}

int run_ps(const train_options& o, const actors::cluster_spec& spec,
           const actors::cluster_task& task, int workers) {
  if (task.index != 0)
    return serve_until_signal(spec, task, "the variables", o);
  actors::engine e{actors::worker_options(task, spec)};
  std::unique_ptr<metrics_server> metrics;
  if (!serve(e, task, "the variables", o, &metrics))
    return cannot_start_exit;
  // ps:0 ends when every worker is done (or on a signal).
  graph::scope s{e.context().ops()};
  sync_queues q{s, workers};
  actors::session sess{e};
  auto st = sess.extend(s.graph_def());
  if (!st.is_ok())
    return train_fail(st.to_string());
  std::thread waiter{[&] {
    std::vector<core::tensor> out;
    auto done = sess.run({}, {q.all_done}, {}, &out);
    if (!done.is_ok() && !o.quiet)
      std::fprintf(stderr, "waiting for the workers: %s\n",
                   done.to_string().c_str());
    ::kill(::getpid(), SIGTERM);
  }};
  wait_for_signal();
  sess.close().ignore();
  waiter.join();
  if (!o.quiet)
    std::fprintf(stderr, "%s: every worker is done\n", task.name().c_str());
  return 0;
}

/// A training worker's engine options: its task's, with --threads.
actors::engine_options trainer_options(const train_options& o,
                                       const actors::cluster_spec& spec,
                                       const actors::cluster_task& task) {
  return with_threads(actors::worker_options(task, spec), o.threads);
}

/// Connects `e` to the tasks of job `job` in `spec` but `task` and adds
/// their workers to `*all`; on failure, says which to start.
core::status connect_job(actors::engine& e, const actors::cluster_spec& spec,
                         const std::string& job,
                         const actors::cluster_task& task,
                         std::vector<actors::worker_ref>* all) {
  auto only = spec;
  only.tasks.erase(std::remove_if(only.tasks.begin(), only.tasks.end(),
                                  [&](const auto& t) {
                                    return t.job != job
                                           || t.name() == task.name();
                                  }),
                   only.tasks.end());
  // Tasks of one's own job reach this one as it reaches them: each pair
  // connects once (actors::join_peers).
  auto st = job == task.job ? actors::join_peers(e, only, task)
                            : actors::connect_cluster(e, only);
  if (!st.is_ok())
    return core::status{st.code(),
                        st.message() + "\n  start the " + job + " tasks first"};
  for (auto& w : e.workers())
    all->push_back(std::move(w));
  return core::status::ok();
}

/// Connects `e` to the tasks of `jobs` (but `task`), runs its sessions on
/// them and this process's worker, and loads replica `task.index`'s shard
/// of `job`'s data (of `workers`).
core::status join_and_load(actors::engine& e, const actors::cluster_spec& spec,
                           const actors::cluster_task& task,
                           const std::vector<std::string>& jobs,
                           training_job& job, int workers) {
  auto all = e.workers();
  for (const auto& name : jobs)
    ACTORFLOW_RETURN_IF_ERROR(connect_job(e, spec, name, task, &all));
  e.use_workers(all);
  return job.load(e, task.index, workers);
}

/// What replica `task` trains with: `o`, but only the chief writes the
/// trace and the TensorBoard log (its trace has ps:0's part too).
train_options replica_options(const train_options& o,
                              const actors::cluster_task& task) {
  auto per_worker = o;
  if (task.index != 0) {
    per_worker.trace.clear();
    per_worker.logdir.clear();
  }
  return per_worker;
}

/// Validates `def`, places it as a replica (variables on `variables`,
/// the rest on `device`; graph::place_replica) and adds it to `sess`.
core::status extend_replica(actors::engine& e, actors::session& sess,
                            graph::graph def, const std::string& variables,
                            const std::string& device,
                            const std::string& local_prefix) {
  graph::graph_types types;
  ACTORFLOW_RETURN_IF_ERROR(graph::validate(def, e.context().ops(), &types));
  ACTORFLOW_RETURN_IF_ERROR(
    graph::place_replica(def, types, variables, device, local_prefix));
  return sess.extend(def);
}

/// A trainer's session: --graph-passes, --wire-dtype and --schedule-recvs.
actors::session_options trainer_session(const train_options& o) {
  actors::session_options so;
  so.pass_selection = o.passes;
  so.wire_dtype = o.wire_dtype;
  so.schedule_recvs = o.schedule_recvs;
  return so;
}

int run_worker(const train_options& o, training_job& job,
               const actors::cluster_spec& spec,
               const actors::cluster_task& task, int workers,
               bool with_experts) {
  actors::engine e{trainer_options(o, spec, task)};
  if (!e.init_status().is_ok()) {
    train_fail(e.init_status().to_string());
    return cannot_start_exit;
  }
  training_gauges gauges;
  std::unique_ptr<metrics_server> metrics;
  if (!serve_metrics(o, e, task, &metrics, &gauges))
    return cannot_start_exit;
  // The ps tasks, a mixture's expert tasks and this process's own worker.
  std::vector<std::string> jobs{"ps"};
  if (with_experts)
    jobs.emplace_back("expert");
  auto st = join_and_load(e, spec, task, jobs, job, workers);
  if (!st.is_ok())
    return train_fail(st.to_string());
  const std::string ps_device = "/job:ps/task:0/device:cpu:0";
  graph::scope s{e.context().ops()};
  auto g = job.build(s, o.sync ? workers : 0, ps_device);
  sync_queues q{s, workers};
  if (!s.ok())
    return train_fail(s.status().to_string());
  actors::session sess{e, trainer_session(o)};
  st = extend_replica(e, sess, s.graph_def(), ps_device,
                      task.name() + "/device:cpu:0", g.local_prefix);
  if (!st.is_ok())
    return train_fail(st.to_string());

  std::vector<core::tensor> out;
  bool chief = task.index == 0;
  int64_t step = 0;
  std::unique_ptr<actors::checkpoint_manager> checkpoints;
  if (chief) {
    // The chief initialises everything, restores, then lets the others go.
    st = sess.run(g.feeds, {}, {g.init}, &out);
    if (st.is_ok()) {
      checkpoints = std::make_unique<actors::checkpoint_manager>(
        sess, g.saver, g.checkpoint_dir, "model", o.keep);
      st = restore_for_resume(o, *checkpoints, &step);
    }
    if (st.is_ok() && !q.ready_put.empty())
      st = sess.run({}, {}, {q.ready_put}, &out);
  } else {
    // Its own variables, then it waits until the chief has initialised.
    if (!g.local_init.empty())
      st = sess.run(g.feeds, {}, {g.local_init}, &out);
    if (st.is_ok() && !o.quiet)
      std::fprintf(stderr, "%s waits for the chief to initialise\n",
                   task.name().c_str());
    if (st.is_ok())
      st = sess.run({}, {q.ready_take}, {}, &out);
    // Replicas in step start where the chief resumed.
    if (st.is_ok() && o.sync)
      st = sess.run({}, {g.global_step}, {}, &out);
    if (st.is_ok() && o.sync)
      step = out[0].scalar_value<int64_t>();
  }
  if (!st.is_ok())
    return train_fail(st.to_string());
  auto per_worker = replica_options(o, task);
  std::string after_step;
  if (o.sync)
    after_step
      = chief ? g.sync_apply : g.sync_wait[static_cast<size_t>(task.index)];
  auto rc
    = job.train(sess, per_worker, step, checkpoints.get(), after_step, &gauges);
  if (rc == 0) {
    // Training is over either way: ps:0 may already have stopped once the
    // other workers' tokens and this one's were in, before this step's
    // report came back.
    st = sess.run({}, {}, {q.done_put}, &out);
    if (!st.is_ok() && !o.quiet)
      std::fprintf(stderr, "%s: telling ps:0 it is done: %s\n",
                   task.name().c_str(), st.to_string().c_str());
  }
  return rc;
}

/// A worker of --strategy allreduce: serves its worker (where the others'
/// collectives reach it), connects to the other workers, builds its
/// replica on its own device with the gradients all-reduced among all
/// workers' cpu:0, and trains; the chief checkpoints. Every replica
/// initialises its variables from the same seeds (and restores the same
/// checkpoint with --resume), so they start, and stay, equal.
int run_allreduce_worker(const train_options& o, training_job& job,
                         const actors::cluster_spec& spec,
                         const actors::cluster_task& task, int workers) {
  actors::engine e{trainer_options(o, spec, task)};
  training_gauges gauges;
  std::unique_ptr<metrics_server> metrics;
  if (!serve(e, task, "its replica", o, &metrics, &gauges))
    return cannot_start_exit;
  auto st = join_and_load(e, spec, task, {"worker"}, job, workers);
  if (!st.is_ok())
    return train_fail(st.to_string());
  std::vector<std::string> members;
  for (const auto& t : spec.tasks)
    if (t.job == "worker")
      members.push_back(t.name() + "/device:cpu:0");
  const auto device = task.name() + "/device:cpu:0";
  graph::scope s{e.context().ops()};
  auto g = job.build(s, 0, {}, members);
  if (!s.ok())
    return train_fail(s.status().to_string());
  actors::session sess{e, trainer_session(o)};
  st = extend_replica(e, sess, s.graph_def(), device, device, "");
  std::vector<core::tensor> out;
  if (st.is_ok())
    st = sess.run(g.feeds, {}, {g.init}, &out);
  bool chief = task.index == 0;
  int64_t step = 0;
  std::unique_ptr<actors::checkpoint_manager> checkpoints;
  if (st.is_ok()) {
    checkpoints = std::make_unique<actors::checkpoint_manager>(
      sess, g.saver, g.checkpoint_dir, "model", o.keep);
    st = restore_for_resume(o, *checkpoints, &step);
  }
  if (!st.is_ok())
    return train_fail(st.to_string());
  auto per_worker = replica_options(o, task);
  return job.train(sess, per_worker, step, chief ? checkpoints.get() : nullptr,
                   "", &gauges);
}

} // namespace

int run_train_task(const train_options& options) {
  auto o = options;
  actors::cluster_spec spec;
  std::string name;
  auto st = o.cluster.load(&spec, &name);
  if (!st.is_ok())
    return train_fail(st.to_string());
  const auto* task = spec.find(name);
  if (task == nullptr)
    return train_fail("the cluster file has no task '" + name
                      + "' (name it job:index, e.g. worker:0)");
  auto count = [&](const char* job) {
    return static_cast<int>(
      std::count_if(spec.tasks.begin(), spec.tasks.end(),
                    [job](const auto& x) { return x.job == job; }));
  };
  auto workers = count("worker");
  // SIGTERM and SIGINT end a task that serves; blocked before any thread
  // starts.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  if (o.strategy == "allreduce") {
    // The replicas are the worker tasks; a task of another job serves its
    // devices until stopped (`cluster up` ends it once the workers are
    // done), so the replicas may be a part of a larger cluster.
    if (task->job != "worker") {
      pthread_sigmask(SIG_BLOCK, &stop, nullptr);
      return serve_until_signal(spec, *task, "its devices", o);
    }
    std::unique_ptr<training_job> job;
    if (auto err = make_training_job(o, &job); !err.empty())
      return train_fail(err);
    return run_allreduce_worker(o, *job, spec, *task, workers);
  }
  if (count("ps") == 0 || workers == 0)
    return train_fail("training on a cluster needs a job 'ps' and a job "
                      "'worker' (configs/ps-2workers.yaml)");
  if (task->job == "ps" || task->job == "expert")
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  if (task->job == "ps")
    return run_ps(o, spec, *task, workers);
  if (task->job == "expert")
    return serve_until_signal(spec, *task, "a mixture's experts", o);
  if (task->job == "worker") {
    std::unique_ptr<training_job> job;
    if (auto err = make_training_job(o, &job); !err.empty())
      return train_fail(err);
    // A model with experts (a mixture's) spreads them over the expert
    // tasks.
    std::vector<std::string> experts;
    for (const auto& t : spec.tasks)
      if (t.job == "expert")
        experts.push_back(t.name() + "/device:cpu:0");
    bool with_experts = !experts.empty() && job->place_experts(experts);
    return run_worker(o, *job, spec, *task, workers, with_experts);
  }
  return train_fail("task '" + name + "' is neither ps, worker nor expert");
}

} // namespace actorflow::apps
