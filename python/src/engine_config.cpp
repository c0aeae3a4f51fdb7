// Engine and session options from what Python gives: a session's config
// dict and a cluster (a file, a dict of jobs, TF_CONFIG).
#include "engine_config.hpp"

#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "actorflow/actors/tf_config.hpp"
#include "errors.hpp"

namespace nb = nanobind;

namespace actorflow::python {

std::optional<actors::cluster_spec> cluster_of(nb::handle cluster,
                                               bool tf_config) {
  actors::cluster_spec spec;
  if (tf_config) {
    std::string task;
    throw_if_error(actors::tf_config_from_environment(&spec, &task));
    return spec;
  }
  if (cluster.is_none())
    return std::nullopt;
  if (nb::isinstance<nb::dict>(cluster)) {
    std::vector<std::pair<std::string, std::vector<std::string>>> jobs;
    for (auto [job, tasks] : nb::borrow<nb::dict>(cluster))
      jobs.emplace_back(nb::cast<std::string>(job),
                        nb::cast<std::vector<std::string>>(tasks));
    throw_if_error(actors::cluster_spec::from_jobs(jobs, &spec));
    return spec;
  }
  throw_if_error(
    actors::cluster_spec::load(nb::cast<std::string>(nb::str(cluster)), &spec));
  return spec;
}

void apply_config(nb::dict config, actors::engine_options* eo,
                  actors::session_options* so) {
  // No GPU unless asked for: a Python process may not own the device.
  eo->num_gpu_devices = 0;
  for (auto [key, value] : config) {
    auto k = nb::cast<std::string>(key);
    if (k == "num_cpu_devices")
      eo->num_cpu_devices = nb::cast<int>(value);
    else if (k == "intra_op_parallelism_threads")
      eo->threads_per_device = nb::cast<int>(value);
    else if (k == "inter_op_parallelism_threads")
      eo->scheduler_threads = nb::cast<int>(value);
    else if (k == "default_device")
      eo->default_device = nb::cast<std::string>(value);
    else if (k == "num_gpu_devices")
      eo->num_gpu_devices = nb::cast<int>(value);
    else if (k == "log_device_placement" && so != nullptr)
      so->log_device_placement = nb::cast<bool>(value);
    else
      throw status_error{core::invalid_argument_error(
        "unknown session config key '", k,
        "'; known: num_cpu_devices, num_gpu_devices, "
        "intra_op_parallelism_threads, inter_op_parallelism_threads, "
        "default_device",
        so != nullptr ? ", log_device_placement" : "")};
  }
}

} // namespace actorflow::python
