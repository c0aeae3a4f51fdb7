// `actorflow worker`: one task of a cluster, serving its devices until
// a signal.

#include "cluster/worker.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <pthread.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/engine.hpp"
#include "cluster/cluster_source.hpp"
#include "cluster/metrics_server.hpp"
#include "common/exit_codes.hpp"
#include "common/flags.hpp"

namespace actorflow::apps {

int run_worker(const worker_options& o) {
  if (!o.cluster.given()) {
    std::fprintf(stderr, "actorflow worker: give --config F --task T, "
                         "--from-tf-config or --from-slurm\n");
    return cannot_start_exit;
  }
  actors::cluster_spec spec;
  std::string name;
  auto st = o.cluster.load(&spec, &name);
  if (!st.is_ok()) {
    std::fprintf(stderr, "actorflow worker: %s\n", st.to_string().c_str());
    return cannot_start_exit;
  }
  const auto* task = spec.find(name);
  if (task == nullptr) {
    std::fprintf(stderr,
                 "actorflow worker: the cluster file has no task '%s' "
                 "(name it job:index, e.g. worker:0)\n",
                 name.c_str());
    return cannot_start_exit;
  }
  // SIGTERM and SIGINT are taken by sigwait below: blocked before any
  // thread starts, so that every thread inherits the mask.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  auto options = with_threads(actors::worker_options(*task, spec), o.threads);
  if (o.bulk_min_bytes >= 0)
    options.bulk_min_bytes = static_cast<size_t>(o.bulk_min_bytes);
  actors::engine e{options};
  if (!e.init_status().is_ok()) {
    std::fprintf(stderr, "actorflow worker: %s\n",
                 e.init_status().to_string().c_str());
    return cannot_start_exit;
  }
  uint16_t port = 0;
  st = actors::serve_worker(
    e, task->bind_host(),
    o.port >= 0 ? static_cast<uint16_t>(o.port) : task->bind_port(), &port);
  if (!st.is_ok()) {
    std::fprintf(stderr, "actorflow worker: %s\n", st.to_string().c_str());
    return cannot_start_exit;
  }
  std::unique_ptr<metrics_server> metrics;
  if (o.metrics_port >= 0) {
    st = metrics_server::start(
      task->bind_host(), static_cast<uint16_t>(o.metrics_port),
      [&e] { return e.metrics_text(); }, &metrics);
    if (!st.is_ok()) {
      std::fprintf(stderr, "actorflow worker: %s\n", st.to_string().c_str());
      return cannot_start_exit;
    }
  }
  // The line tests and scripts wait for: the port is bound.
  std::printf("actorflow worker %s listening on %s:%u%s (bulk path %s)\n",
              task->name().c_str(), task->bind_host().c_str(),
              static_cast<unsigned>(port), e.uses_tls() ? " with TLS" : "",
              e.bulk_address().c_str());
  if (metrics)
    std::printf("actorflow worker %s metrics at http://%s:%u/metrics\n",
                task->name().c_str(), task->bind_host().c_str(),
                static_cast<unsigned>(metrics->port()));
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  std::printf("actorflow worker %s stopping (signal %d)\n",
              task->name().c_str(), sig);
  std::fflush(stdout);
  // The engine's destructor stops the worker, which fails the steps still
  // running, and waits for every actor.
  return EXIT_SUCCESS;
}

void add_worker_command(CLI::App& app, command_list* out) {
  auto worker = std::make_shared<worker_options>();
  auto* cmd = app.add_subcommand(
    "worker", "Serve one task of a cluster file: publish this process's "
              "worker, print the address it listens on, run the partitions "
              "clients register until SIGTERM or SIGINT");
  auto* config = cmd
                   ->add_option("--config", worker->cluster.file,
                                "The cluster file (YAML)")
                   ->check(CLI::ExistingFile);
  auto* task
    = cmd->add_option("--task", worker->cluster.task, "This task, as job:index")
        ->needs(config);
  config->needs(task);
  add_cluster_source_options(cmd, &worker->cluster, config, task, true);
  cmd
    ->add_option("--port", worker->port,
                 "Listen on this port instead of the file's (0: any free "
                 "port)")
    ->check(int_range(0, 65535));
  add_threads_option(cmd, &worker->threads);
  cmd
    ->add_option("--bulk-min-bytes", worker->bulk_min_bytes,
                 "Tensors of at least this many bytes go to other workers "
                 "over the bulk path, smaller ones through CAF (default: "
                 "65536)")
    ->check(CLI::NonNegativeNumber);
  cmd
    ->add_option("--metrics-port", worker->metrics_port,
                 "Serve Prometheus metrics at http://HOST:PORT/metrics on "
                 "the task's host (0: any free port; docs/observability.md)")
    ->check(int_range(0, 65535));
  out->push_back({cmd, [worker] { return run_worker(*worker); }});
}

} // namespace actorflow::apps
