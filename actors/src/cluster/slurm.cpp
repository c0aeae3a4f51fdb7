#include "actorflow/actors/slurm_cluster.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace actorflow::actors {

namespace {

/// `text` as a whole number in [min, max], or -1.
long whole(const std::string& text, long min, long max) {
  char* end = nullptr;
  auto value = std::strtol(text.c_str(), &end, 10);
  return text.empty() || *end != '\0' || value < min || value > max ? -1
                                                                    : value;
}

/// The tasks of each node from `2(x3),1`: 2, 2, 2, 1.
core::status tasks_per_node(const std::string& text, std::vector<int>* out) {
  std::stringstream in{text};
  std::string item;
  while (std::getline(in, item, ',')) {
    auto paren = item.find("(x");
    auto count = whole(item.substr(0, paren), 1, 1 << 20);
    long repeat = 1;
    if (paren != std::string::npos) {
      repeat
        = item.back() == ')'
            ? whole(item.substr(paren + 2, item.size() - paren - 3), 1, 1 << 20)
            : -1;
    }
    if (count < 0 || repeat < 0)
      return core::invalid_argument_error(
        "SLURM_STEP_TASKS_PER_NODE '", text,
        "' is not a list of N or N(xM), e.g. 2(x3),1");
    out->insert(out->end(), static_cast<size_t>(repeat),
                static_cast<int>(count));
  }
  return core::status::ok();
}

} // namespace

core::status slurm_cluster(const slurm_step& step, const std::string& jobs,
                           int port_base, cluster_spec* spec,
                           std::string* task) {
  if (step.ntasks < 1 || step.procid < 0 || step.procid >= step.ntasks)
    return core::invalid_argument_error("SLURM_PROCID ", step.procid,
                                        " is not a rank of SLURM_NTASKS ",
                                        step.ntasks, " tasks");
  std::vector<int> per_node;
  ACTORFLOW_RETURN_IF_ERROR(tasks_per_node(step.tasks_per_node, &per_node));
  if (per_node.size() != step.hostnames.size())
    return core::invalid_argument_error(
      "SLURM_STEP_TASKS_PER_NODE '", step.tasks_per_node, "' counts ",
      per_node.size(), " nodes, the node list has ", step.hostnames.size());
  // Every rank's address: the nodes in order, a port per task on a node.
  std::vector<std::string> addresses;
  int most = 0;
  for (size_t n = 0; n < per_node.size(); ++n) {
    most = std::max(most, per_node[n]);
    for (int k = 0; k < per_node[n]; ++k)
      addresses.push_back(step.hostnames[n] + ":"
                          + std::to_string(port_base + k));
  }
  if (static_cast<int>(addresses.size()) != step.ntasks)
    return core::invalid_argument_error(
      "SLURM_STEP_TASKS_PER_NODE '", step.tasks_per_node, "' places ",
      addresses.size(), " tasks, SLURM_NTASKS is ", step.ntasks);
  if (port_base < 1 || port_base + most - 1 > 65535)
    return core::invalid_argument_error(
      "--port-base ", port_base, " leaves no port for ", most,
      " tasks on a node (ports are port_base..port_base+", most - 1, ")");
  // The jobs take the ranks in order.
  std::vector<std::pair<std::string, long>> counts;
  std::stringstream in{jobs.empty() ? "worker:" + std::to_string(step.ntasks)
                                    : jobs};
  std::string item;
  long total = 0;
  while (std::getline(in, item, ',')) {
    auto colon = item.rfind(':');
    auto count = colon == std::string::npos
                   ? -1
                   : whole(item.substr(colon + 1), 1, 1 << 20);
    if (count < 0)
      return core::invalid_argument_error(
        "--jobs '", jobs, "' is not job:count,... (e.g. ps:1,worker:2)");
    counts.emplace_back(item.substr(0, colon), count);
    total += count;
  }
  if (total != step.ntasks)
    return core::invalid_argument_error("--jobs '", jobs, "' has ", total,
                                        " tasks, the Slurm step ", step.ntasks,
                                        " (srun -n ", total, ")");
  std::vector<std::pair<std::string, std::vector<std::string>>> split;
  std::string mine;
  size_t rank = 0;
  for (const auto& [name, count] : counts) {
    std::vector<std::string> tasks;
    for (long i = 0; i < count; ++i, ++rank) {
      if (static_cast<int>(rank) == step.procid)
        mine = name + ":" + std::to_string(i);
      tasks.push_back(addresses[rank]);
    }
    split.emplace_back(name, std::move(tasks));
  }
  cluster_spec parsed;
  ACTORFLOW_RETURN_IF_ERROR(cluster_spec::from_jobs(split, &parsed));
  *spec = std::move(parsed);
  *task = mine;
  return core::status::ok();
}

} // namespace actorflow::actors
