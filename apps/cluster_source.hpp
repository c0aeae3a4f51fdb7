#pragma once

#include <string>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::apps {

/// Loads the cluster a command runs in and this process's task: from the
/// cluster file `file` with the task `task_flag` (`--config`/`--cluster`
/// and `--task`), or with `from_tf_config` from TensorFlow's `TF_CONFIG`
/// in the environment (`--from-tf-config`; `actors::parse_tf_config`).
core::status load_cluster(const std::string& file, const std::string& task_flag,
                          bool from_tf_config, actors::cluster_spec* spec,
                          std::string* task);

} // namespace actorflow::apps
