#include "actorflow/actors/cluster.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include <caf/io/middleman.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/scoped_actor.hpp>
#include <yaml-cpp/yaml.h>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/device_name.hpp"
#include "worker_link.hpp"

namespace actorflow::actors {

namespace {

core::status parse_address(const std::string& text, cluster_task* task) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return core::invalid_argument_error("task address '", text,
                                        "' is not host:port");
  task->host = text.substr(0, colon);
  auto port = text.substr(colon + 1);
  char* end = nullptr;
  auto value = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || value < 0 || value > 65535)
    return core::invalid_argument_error("task address '", text,
                                        "' has no port in 0..65535");
  task->port = static_cast<uint16_t>(value);
  return core::status::ok();
}

core::status parse_tree(const YAML::Node& root, cluster_spec* out) {
  cluster_spec spec;
  auto jobs = root["jobs"];
  if (!jobs || !jobs.IsMap() || jobs.size() == 0)
    return core::invalid_argument_error(
      "a cluster file needs a map 'jobs' of job name to its tasks");
  for (const auto& job : jobs) {
    auto name = job.first.as<std::string>();
    if (name.empty()
        || !std::all_of(name.begin(), name.end(), [](unsigned char c) {
             return std::isalnum(c) || c == '_' || c == '-';
           }))
      return core::invalid_argument_error("job name '", name,
                                          "' is not [A-Za-z0-9_-]+");
    auto tasks = job.second["tasks"];
    if (!tasks || !tasks.IsSequence() || tasks.size() == 0)
      return core::invalid_argument_error(
        "job '", name, "' needs a list 'tasks' of host:port");
    int cpus = 1;
    if (auto c = job.second["cpus"]) {
      cpus = c.as<int>();
      if (cpus < 1 || cpus > 1024)
        return core::invalid_argument_error("job '", name,
                                            "': cpus must be 1..1024");
    }
    auto listen = job.second["listen"];
    if (listen && (!listen.IsSequence() || listen.size() != tasks.size()))
      return core::invalid_argument_error(
        "job '", name, "': 'listen' needs a host:port for each of its ",
        tasks.size(), " tasks");
    for (size_t i = 0; i < tasks.size(); ++i) {
      cluster_task t;
      t.job = name;
      t.index = static_cast<int>(i);
      t.cpus = cpus;
      ACTORFLOW_RETURN_IF_ERROR(parse_address(tasks[i].as<std::string>(), &t));
      if (listen) {
        cluster_task at;
        ACTORFLOW_RETURN_IF_ERROR(
          parse_address(listen[i].as<std::string>(), &at));
        t.listen_host = at.host;
        t.listen_port = at.port;
      }
      spec.tasks.push_back(std::move(t));
    }
  }
  // Two tasks cannot listen at one address.
  std::map<std::pair<std::string, uint16_t>, const cluster_task*> at;
  for (const auto& t : spec.tasks) {
    if (t.bind_port() == 0)
      continue;
    auto [i, fresh] = at.emplace(std::pair{t.bind_host(), t.bind_port()}, &t);
    if (!fresh)
      return core::invalid_argument_error(
        "tasks ", i->second->name(), " and ", t.name(), " both listen at ",
        t.bind_host(), ":", t.bind_port(), ": give each task its own port");
  }
  if (auto timeouts = root["timeouts"]) {
    struct limit {
      const char* key;
      std::chrono::milliseconds* value;
      int64_t min;
    };
    for (auto [key, value, min] :
         {limit{"connect_ms", &spec.connect_timeout, 1},
          limit{"heartbeat_ms", &spec.heartbeat, 0},
          limit{"peer_ms", &spec.peer_timeout, 0}})
      if (auto c = timeouts[key]) {
        auto ms = c.as<int64_t>();
        if (ms < min)
          return core::invalid_argument_error("timeouts.", key,
                                              " must be >= ", min);
        *value = std::chrono::milliseconds{ms};
      }
    // A peer timeout without a heartbeat gets three heartbeats in it.
    if (!timeouts["heartbeat_ms"] && spec.peer_timeout.count() > 0)
      spec.heartbeat = std::min(spec.heartbeat, spec.peer_timeout / 3);
    if (spec.peer_timeout.count() > 0
        && spec.peer_timeout <= spec.heartbeat * 2)
      return core::invalid_argument_error(
        "timeouts.peer_ms must be more than twice heartbeat_ms (or 0)");
  }
  if (auto tls = root["tls"]) {
    auto& t = spec.tls;
    for (auto [key, value] :
         {std::pair{"ca", &t.ca}, std::pair{"certificate", &t.certificate},
          std::pair{"key", &t.key},
          std::pair{"client_certificate", &t.client_certificate},
          std::pair{"client_key", &t.client_key}}) {
      auto v = tls[key];
      if (!v || v.as<std::string>().empty())
        return core::invalid_argument_error(
          "tls.", key,
          " is missing: TLS needs ca, certificate, key, client_certificate "
          "and client_key (PEM files)");
      *value = v.as<std::string>();
    }
  }
  *out = std::move(spec);
  return core::status::ok();
}

} // namespace

std::string cluster_task::name() const {
  return "/job:" + job + "/task:" + std::to_string(index);
}

core::status cluster_spec::parse(const std::string& yaml, cluster_spec* out) {
  try {
    return parse_tree(YAML::Load(yaml), out);
  } catch (const YAML::Exception& e) {
    return core::invalid_argument_error("malformed cluster file: ", e.what());
  }
}

core::status cluster_spec::load(const std::string& path, cluster_spec* out) {
  std::ifstream in{path};
  if (!in)
    return core::not_found_error("cannot read cluster file '", path, "'");
  std::stringstream text;
  text << in.rdbuf();
  auto st = parse(text.str(), out);
  if (!st.is_ok())
    return core::status{st.code(), path + ": " + st.message()};
  // TLS files are found beside the cluster file.
  auto dir = std::filesystem::path{path}.parent_path();
  auto& t = out->tls;
  for (auto* file :
       {&t.ca, &t.certificate, &t.key, &t.client_certificate, &t.client_key})
    if (!file->empty() && std::filesystem::path{*file}.is_relative())
      *file = (dir / *file).string();
  return st;
}

core::status cluster_spec::from_jobs(
  const std::vector<std::pair<std::string, std::vector<std::string>>>& jobs,
  cluster_spec* out) {
  YAML::Emitter text;
  text << YAML::BeginMap << YAML::Key << "jobs" << YAML::Value
       << YAML::BeginMap;
  for (const auto& [job, addresses] : jobs)
    text << YAML::Key << job << YAML::Value << YAML::BeginMap << YAML::Key
         << "tasks" << YAML::Value << YAML::Flow << addresses << YAML::EndMap;
  text << YAML::EndMap << YAML::EndMap;
  return parse(text.c_str(), out);
}

const cluster_task* cluster_spec::find(std::string_view name) const {
  std::string job;
  int index = -1;
  if (auto parsed = core::device_name::parse(name);
      parsed && parsed->job && parsed->task) {
    job = *parsed->job;
    index = *parsed->task;
  } else if (auto colon = name.rfind(':'); colon != std::string_view::npos) {
    job = std::string{name.substr(0, colon)};
    auto digits = std::string{name.substr(colon + 1)};
    char* end = nullptr;
    auto value = std::strtol(digits.c_str(), &end, 10);
    if (digits.empty() || *end != '\0')
      return nullptr;
    index = static_cast<int>(value);
  }
  for (const auto& t : tasks)
    if (t.job == job && t.index == index)
      return &t;
  return nullptr;
}

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
