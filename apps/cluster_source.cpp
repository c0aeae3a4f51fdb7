#include "cluster_source.hpp"

#include "actorflow/actors/tf_config.hpp"

namespace actorflow::apps {

core::status load_cluster(const std::string& file, const std::string& task_flag,
                          bool from_tf_config, actors::cluster_spec* spec,
                          std::string* task) {
  if (from_tf_config)
    return actors::tf_config_from_environment(spec, task);
  ACTORFLOW_RETURN_IF_ERROR(actors::cluster_spec::load(file, spec));
  *task = task_flag;
  return core::status::ok();
}

} // namespace actorflow::apps
