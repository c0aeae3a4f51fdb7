#include "actorflow/actors/tf_config.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

namespace actorflow::actors {

namespace {

constexpr const char* what_it_is
  = " (TF_CONFIG is JSON: {\"cluster\": {\"worker\": [\"host:port\", ...], "
    "...}, \"task\": {\"type\": \"worker\", \"index\": 0}})";

/// The addresses of one job of `cluster`.
core::status addresses_of(const std::string& job, const nlohmann::json& tasks,
                          std::vector<std::string>* out) {
  if (!tasks.is_array() || tasks.empty())
    return core::invalid_argument_error(
      "TF_CONFIG: cluster.", job, " is not a non-empty list of \"host:port\"",
      tasks.is_object() ? " (a map of index to address is not supported)" : "",
      what_it_is);
  for (const auto& t : tasks) {
    if (!t.is_string())
      return core::invalid_argument_error("TF_CONFIG: cluster.", job, " holds ",
                                          t.dump(),
                                          ", not a \"host:port\" string");
    out->push_back(t.get<std::string>());
  }
  return core::status::ok();
}

} // namespace

core::status parse_tf_config(const std::string& json, cluster_spec* spec,
                             std::string* task) {
  auto root = nlohmann::json::parse(json, nullptr, false);
  if (root.is_discarded() || !root.is_object())
    return core::invalid_argument_error("TF_CONFIG is not a JSON object",
                                        what_it_is);
  auto cluster = root.find("cluster");
  if (cluster == root.end() || !cluster->is_object() || cluster->empty())
    return core::invalid_argument_error("TF_CONFIG has no \"cluster\" map",
                                        what_it_is);
  auto self = root.find("task");
  if (self == root.end() || !self->is_object() || !self->contains("type")
      || !(*self)["type"].is_string() || !self->contains("index")
      || !(*self)["index"].is_number_integer())
    return core::invalid_argument_error(
      "TF_CONFIG has no \"task\" with a string \"type\" and an integer "
      "\"index\"",
      what_it_is);
  auto type = (*self)["type"].get<std::string>();
  auto index = (*self)["index"].get<int64_t>();
  // The jobs (by name: JSON objects have no order); a chief becomes
  // worker 0.
  std::vector<std::pair<std::string, std::vector<std::string>>> jobs;
  std::vector<std::string> chief;
  for (const auto& [job, tasks] : cluster->items()) {
    if (job == "evaluator")
      continue;
    std::vector<std::string> addresses;
    ACTORFLOW_RETURN_IF_ERROR(addresses_of(job, tasks, &addresses));
    if (job == "chief")
      chief = std::move(addresses);
    else
      jobs.emplace_back(job, std::move(addresses));
  }
  if (chief.size() > 1)
    return core::invalid_argument_error("TF_CONFIG: cluster.chief has ",
                                        chief.size(),
                                        " tasks; a cluster has one chief");
  if (!chief.empty()) {
    auto worker = std::find_if(jobs.begin(), jobs.end(), [](const auto& j) {
      return j.first == "worker";
    });
    if (worker == jobs.end())
      jobs.emplace_back("worker", chief);
    else
      worker->second.insert(worker->second.begin(), chief.front());
  }
  if (type == "evaluator")
    return core::invalid_argument_error(
      "TF_CONFIG: this task is the evaluator, which is not part of the "
      "cluster (TensorFlow leaves it out too): evaluate from a checkpoint "
      "with a separate process");
  if (type == "chief") {
    if (chief.empty())
      return core::invalid_argument_error(
        "TF_CONFIG: this task is the chief but cluster has no chief");
    if (index != 0)
      return core::invalid_argument_error("TF_CONFIG: there is no chief ",
                                          index, " (only chief 0)");
    type = "worker";
  } else if (type == "worker" && !chief.empty()) {
    ++index; // after the chief
  }
  cluster_spec parsed;
  auto st = cluster_spec::from_jobs(jobs, &parsed);
  if (!st.is_ok())
    return core::status{st.code(), "TF_CONFIG: " + st.message()};
  auto name = type + ":" + std::to_string(index);
  if (parsed.find(name) == nullptr)
    return core::invalid_argument_error(
      "TF_CONFIG: this task, ", (*self)["type"].get<std::string>(), " ",
      (*self)["index"].get<int64_t>(), ", is not in the cluster");
  *spec = std::move(parsed);
  *task = name;
  return core::status::ok();
}

core::status tf_config_from_environment(cluster_spec* spec, std::string* task) {
  const char* text = std::getenv("TF_CONFIG");
  if (text == nullptr || *text == '\0')
    return core::failed_precondition_error(
      "TF_CONFIG is not set: set it to the cluster and this task", what_it_is,
      ", or give a cluster file");
  return parse_tf_config(text, spec, task);
}

} // namespace actorflow::actors
