// Engine and session options from what Python gives: a session's config
// dict and a cluster (a file, a dict of jobs, TF_CONFIG).
#pragma once

#include <optional>

#include <nanobind/nanobind.h>

#include "actorflow/actors/cluster.hpp"
#include "actorflow/actors/engine.hpp"

namespace actorflow::python {

/// The cluster a session is a client of: a cluster file's path, a dict of
/// jobs (`{"worker": ["host:port", ...]}`, as tf.train.ClusterSpec takes),
/// or TensorFlow's TF_CONFIG from the environment; none for None.
std::optional<actors::cluster_spec> cluster_of(nanobind::handle cluster,
                                               bool tf_config);

/// Sets what a session's `config` dict says in `eo` and `so` (so may be
/// null where there is no session of one's own to set); an unknown key is
/// an error naming the known ones.
void apply_config(nanobind::dict config, actors::engine_options* eo,
                  actors::session_options* so);

} // namespace actorflow::python
