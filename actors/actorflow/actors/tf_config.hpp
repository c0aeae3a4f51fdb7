#pragma once

/// A cluster from TensorFlow's `TF_CONFIG` environment variable.

#include <string>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/core/status.hpp"

namespace actorflow::actors {

/// Parses TensorFlow's `TF_CONFIG` JSON into a cluster and this process's
/// task (`job:index`):
///
/// ~~~
/// {"cluster": {"chief": ["host0:2222"], "ps": ["host1:2222"],
///              "worker": ["host2:2222", "host3:2222"]},
///  "task": {"type": "worker", "index": 1}}
/// ~~~
///
/// As in TensorFlow, the chief is a worker that also initialises and
/// checkpoints: with a `chief` job it becomes worker:0 and each worker:i
/// worker:i+1 (here the chief is always worker 0); `evaluator` tasks are
/// not part of the cluster (TensorFlow's cluster resolver leaves them
/// out), so an evaluator's TF_CONFIG is an error. Keys other than `cluster`
/// and `task` (`environment`, `rpc_layer`) are ignored; timeouts are the
/// defaults. `invalid_argument` says what is wrong.
core::status parse_tf_config(const std::string& json, cluster_spec* spec,
                             std::string* task);

/// Parses the environment's `TF_CONFIG`; `failed_precondition` if unset.
core::status tf_config_from_environment(cluster_spec* spec, std::string* task);

} // namespace actorflow::actors
