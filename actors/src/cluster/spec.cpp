// Cluster specs: the YAML file (or TF_CONFIG's jobs) that names every task
// and its address, parsed and checked.
#include "actorflow/actors/cluster.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "actorflow/core/device_name.hpp"

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
} // namespace actorflow::actors
