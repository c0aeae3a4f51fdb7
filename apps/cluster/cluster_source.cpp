// Where a process learns its cluster and task: a cluster file, TF_CONFIG
// or the Slurm step it runs in.

#include "cluster/cluster_source.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include <CLI/CLI.hpp>

#include "actorflow/actors/slurm_cluster.hpp"
#include "actorflow/actors/tf_config.hpp"

namespace actorflow::apps {

namespace {

/// The hosts of a Slurm node list (`node[01-03],gpu7`), expanded by
/// Slurm's own `scontrol show hostnames`.
core::status expand_nodelist(const std::string& list,
                             std::vector<std::string>* hosts) {
  // Only what a node list holds reaches the shell.
  if (list.empty() || !std::all_of(list.begin(), list.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c))
               || std::string_view{"-_.,[]"}.find(c) != std::string::npos;
      }))
    return core::invalid_argument_error("SLURM_STEP_NODELIST '", list,
                                        "' is not a Slurm node list");
  auto command = "scontrol show hostnames '" + list + "' 2>&1";
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr)
    return core::unavailable_error("cannot run scontrol");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  if (::pclose(p) != 0)
    return core::unavailable_error("scontrol show hostnames '", list,
                                   "' failed (is Slurm installed, ",
                                   "SLURM_CONF set?): ", out);
  std::string line;
  for (char c : out) {
    if (c != '\n') {
      line += c;
    } else if (!line.empty()) {
      hosts->push_back(line);
      line.clear();
    }
  }
  if (!line.empty())
    hosts->push_back(line);
  return core::status::ok();
}

/// The environment's Slurm step; `failed_precondition` outside one.
core::status slurm_step_from_environment(actors::slurm_step* step) {
  std::string values[4];
  const char* names[4] = {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_NODELIST",
                          "SLURM_STEP_TASKS_PER_NODE"};
  for (int i = 0; i < 4; ++i) {
    const char* v = std::getenv(names[i]);
    if (v == nullptr || *v == '\0')
      return core::failed_precondition_error(
        names[i], " is not set: --from-slurm runs as a task of a Slurm job "
                  "step (srun -n N actorflow ...)");
    values[i] = v;
  }
  step->procid = std::atoi(values[0].c_str());
  step->ntasks = std::atoi(values[1].c_str());
  step->tasks_per_node = values[3];
  return expand_nodelist(values[2], &step->hostnames);
}

} // namespace

core::status cluster_source::load(actors::cluster_spec* spec,
                                  std::string* self) const {
  if (tf_config)
    return actors::tf_config_from_environment(spec, self);
  if (slurm) {
    actors::slurm_step step;
    ACTORFLOW_RETURN_IF_ERROR(slurm_step_from_environment(&step));
    return actors::slurm_cluster(step, jobs, port_base, spec, self);
  }
  ACTORFLOW_RETURN_IF_ERROR(actors::cluster_spec::load(file, spec));
  *self = task;
  return core::status::ok();
}

void add_cluster_source_options(CLI::App* cmd, cluster_source* source,
                                CLI::Option* file, CLI::Option* task,
                                bool slurm) {
  auto exclusive = [&](CLI::Option* o) {
    o->excludes(file);
    if (task != nullptr)
      o->excludes(task);
    return o;
  };
  auto* tf = exclusive(cmd->add_flag(
    "--from-tf-config", source->tf_config,
    "The cluster and this task from the TF_CONFIG environment variable "
    "(TensorFlow's JSON: {\"cluster\": {\"ps\": [\"host:port\"], "
    "\"worker\": [...]}, \"task\": {\"type\": \"worker\", \"index\": 0}}; "
    "a chief is worker:0, the workers after it)"));
  if (!slurm)
    return;
  auto* from_slurm = exclusive(cmd->add_flag(
    "--from-slurm", source->slurm,
    "The cluster and this task from the Slurm job step this process is a "
    "task of (srun -n N ...): SLURM_PROCID, SLURM_NTASKS, "
    "SLURM_STEP_NODELIST (expanded by scontrol show hostnames) and "
    "SLURM_STEP_TASKS_PER_NODE"));
  from_slurm->excludes(tf);
  cmd
    ->add_option("--jobs", source->jobs,
                 "With --from-slurm: the step's tasks as jobs, in rank "
                 "order, e.g. ps:1,worker:2 (default: every task a worker)")
    ->needs(from_slurm);
  cmd
    ->add_option("--port-base", source->port_base,
                 "With --from-slurm: the port of each node's first task; "
                 "the k-th listens on port-base + k")
    ->capture_default_str()
    ->check(CLI::Range(1, 65535))
    ->needs(from_slurm);
}

} // namespace actorflow::apps
