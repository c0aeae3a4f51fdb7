// Joining a cluster: a worker serving its task, a session connecting to
// every task's worker, and the peers of a task introducing themselves.
#include "actorflow/actors/cluster.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include <caf/io/middleman.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/scoped_actor.hpp>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/device_name.hpp"
#include "transport/worker_link.hpp"

namespace actorflow::actors {

namespace {

/// `pattern` with `{job}` and `{task}` filled in for `task`.
std::string for_task(std::string pattern, const cluster_task& task) {
  for (auto [key, value] :
       {std::pair{std::string{"{job}"}, task.job},
        std::pair{std::string{"{task}"}, std::to_string(task.index)}})
    for (auto at = pattern.find(key); at != std::string::npos;
         at = pattern.find(key, at + value.size()))
      pattern.replace(at, key.size(), value);
  return pattern;
}

} // namespace

engine_options worker_options(const cluster_task& task,
                              const cluster_spec& spec) {
  auto opts = client_options(spec);
  opts.num_cpu_devices = task.cpus;
  opts.job = task.job;
  opts.task = task.index;
  opts.host = task.bind_host();
  if (!spec.tls.ca.empty()) {
    opts.tls.certificate = for_task(spec.tls.certificate, task);
    opts.tls.key = for_task(spec.tls.key, task);
  }
  return opts;
}

engine_options client_options(const cluster_spec& spec) {
  engine_options opts;
  opts.network = true;
  opts.heartbeat = spec.heartbeat;
  opts.peer_timeout = spec.peer_timeout;
  if (!spec.tls.ca.empty()) {
    opts.tls.ca = spec.tls.ca;
    opts.tls.certificate = spec.tls.client_certificate;
    opts.tls.key = spec.tls.client_key;
  }
  return opts;
}

core::status serve_worker(engine& e, const std::string& host, uint16_t port,
                          uint16_t* bound) {
  if (!e.system().has_middleman())
    return core::failed_precondition_error(
      "serving a worker needs the network: set engine_options::network");
  auto res
    = e.uses_tls()
        ? caf::openssl::publish(caf::actor_cast<worker_actor>(e.local_worker()),
                                port, host.c_str(), true)
        : e.system().middleman().publish(
          caf::actor_cast<worker_actor>(e.local_worker()), port, host.c_str(),
          true);
  if (!res)
    return core::unavailable_error("cannot listen on ", host, ":", port, ": ",
                                   e.system().render(res.error()));
  *bound = *res;
  return core::status::ok();
}

namespace {

/// Why `e` cannot connect to `spec`'s tasks, if it cannot: no network, or
/// fewer open files allowed than a connection to each needs.
core::status check_can_connect(engine& e, const cluster_spec& spec) {
  if (!e.system().has_middleman())
    return core::failed_precondition_error(
      "connecting to a cluster needs the network: set "
      "engine_options::network");
  // A connection to each task, a file each, and some to spare.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
      && spec.tasks.size() + 64 > files.rlim_cur)
    return core::resource_exhausted_error(
      "connecting to ", spec.tasks.size(), " tasks needs about ",
      spec.tasks.size() + 64, " open files, and this process may hold at most ",
      files.rlim_cur,
      " (ulimit -n): raise the limit (ulimit -n, or LimitNOFILE= in a "
      "systemd unit)");
  return core::status::ok();
}

/// Connects to the worker of `task`; a task that is starting may not
/// listen yet, so it tries again until the connect timeout has passed.
core::status reach_worker(engine& e, caf::scoped_actor& self,
                          const cluster_task& task, const cluster_spec& spec,
                          worker_actor* out) {
  auto& sys = e.system();
  retry_policy retry;
  retry.attempts = std::numeric_limits<int>::max();
  retry.try_timeout = spec.connect_timeout;
  retry.within = spec.connect_timeout;
  retry.any_failure = true;
  core::status st;
  self
    ->request(connect_worker(sys, task.host, task.port, e.uses_tls(), retry),
              caf::infinite, caf::connect_atom::value)
    .receive([&](worker_actor& w) { *out = std::move(w); },
             [&](caf::error& err) {
               st = core::unavailable_error(
                 "cannot reach the worker of ", task.name(), " at ", task.host,
                 ":", task.port, " within ", spec.connect_timeout.count(),
                 " ms: ", connect_error_text(sys, err));
             });
  return st;
}

/// Asks `hdl`, the worker of `task`, for its devices and checks that they
/// are the task's: the session's reference to it.
core::status describe_worker(engine& e, caf::scoped_actor& self,
                             const cluster_task& task, const cluster_spec& spec,
                             worker_actor hdl, worker_ref* out) {
  worker_ref ref{task.name(), caf::actor_cast<caf::actor>(hdl),
                 {},          task.host,
                 task.port,   spec.connect_timeout,
                 e.uses_tls()};
  core::status st;
  self->request(hdl, spec.connect_timeout, devices_atom::value)
    .receive([&](std::vector<std::string>& names) { ref.devices = names; },
             [&](caf::error& err) {
               st = core::unavailable_error(
                 "the worker of ", task.name(),
                 " did not list its devices: ", e.system().render(err));
             });
  ACTORFLOW_RETURN_IF_ERROR(st);
  for (const auto& d : ref.devices) {
    auto n = core::device_name::parse(d);
    if (!n || n->job != task.job || n->task != task.index)
      return core::failed_precondition_error(
        "the worker at ", task.host, ":", task.port, " has device '", d,
        "', not one of ", task.name(), ": is it started with that task?");
  }
  *out = std::move(ref);
  return core::status::ok();
}

} // namespace

core::status connect_cluster(engine& e, const cluster_spec& spec) {
  ACTORFLOW_RETURN_IF_ERROR(check_can_connect(e, spec));
  std::vector<worker_ref> workers;
  caf::scoped_actor self{e.system()};
  for (const auto& task : spec.tasks) {
    worker_actor hdl;
    ACTORFLOW_RETURN_IF_ERROR(reach_worker(e, self, task, spec, &hdl));
    worker_ref ref;
    ACTORFLOW_RETURN_IF_ERROR(
      describe_worker(e, self, task, spec, std::move(hdl), &ref));
    workers.push_back(std::move(ref));
  }
  e.use_workers(std::move(workers));
  return core::status::ok();
}

core::status join_peers(engine& e, const cluster_spec& peers,
                        const cluster_task& me) {
  ACTORFLOW_RETURN_IF_ERROR(check_can_connect(e, peers));
  auto before = [](const cluster_task& a, const cluster_task& b) {
    return std::tie(a.job, a.index) < std::tie(b.job, b.index);
  };
  std::vector<worker_ref> workers;
  caf::scoped_actor self{e.system()};
  auto introduction = caf::actor_cast<caf::strong_actor_ptr>(e.local_worker());
  auto local = caf::actor_cast<worker_actor>(e.local_worker());
  auto deadline = std::chrono::steady_clock::now() + peers.connect_timeout;
  for (const auto& task : peers.tasks) {
    worker_actor hdl;
    if (before(task, me)) {
      // Listed earlier: this process connects and introduces itself.
      ACTORFLOW_RETURN_IF_ERROR(reach_worker(e, self, task, peers, &hdl));
      self->send(hdl, hello_atom::value, me.name(), introduction);
    } else {
      // Listed later: that task connects here and introduces itself; its
      // worker comes over that connection.
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
      core::status st;
      self
        ->request(local, std::max(left, std::chrono::milliseconds{1}),
                  hello_atom::value, task.name())
        .receive(
          [&](caf::strong_actor_ptr& w) {
            hdl = caf::actor_cast<worker_actor>(std::move(w));
          },
          [&](caf::error& err) {
            st = core::unavailable_error(
              task.name(), " did not connect to ", me.name(), " within ",
              peers.connect_timeout.count(), " ms (", e.system().render(err),
              "): is it started?");
          });
      ACTORFLOW_RETURN_IF_ERROR(st);
    }
    worker_ref ref;
    ACTORFLOW_RETURN_IF_ERROR(
      describe_worker(e, self, task, peers, std::move(hdl), &ref));
    workers.push_back(std::move(ref));
  }
  e.use_workers(std::move(workers));
  return core::status::ok();
}

} // namespace actorflow::actors
