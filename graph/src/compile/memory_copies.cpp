// Host/device copies on the edges of a GPU partition where memories differ.

#include "compile/memory_copies.hpp"

#include <map>
#include <tuple>

#include "actorflow/core/device_name.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/registration.hpp"
#include "compile/graph_index.hpp"

namespace actorflow::graph {

namespace {

/// Whether tensors on `device` live in memory of its own (a GPU's).
bool has_device_memory(const std::string& device) {
  auto name = core::device_name::parse(device);
  return name && name->type && *name->type != "cpu";
}

/// Inserts the copies of one partition on a device with memory of its own.
core::status insert_copies(typed_partition& p,
                           const ops::kernel_registry& kernels) {
  auto& part = p.g;
  auto& types = p.types;
  const auto& device = p.device;
  const auto& type = *core::device_name::parse(device)->type;
  auto edges = part.edges(); // kept: the copies change the inputs below
  const auto& index = *edges;
  std::vector<ops::memory_spec> memory;
  memory.reserve(part.size());
  for (const auto& node : part.nodes())
    memory.push_back(kernels.memory(node, type));
  // One copy per produced tensor and direction, shared by its consumers.
  std::map<std::tuple<std::string, int, bool>, std::string> copies;
  std::vector<core::node_def> added;
  auto& nodes = part.mutable_nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    // The edges follow the inputs one to one: the partition is valid.
    const auto& edges = index.inputs(i);
    for (size_t k = 0; k < edges.size(); ++k) {
      const auto& e = edges[k];
      if (e.control())
        continue;
      auto slot = static_cast<size_t>(e.slot);
      if (types.inputs[i][slot].is_ref)
        continue; // a variable and its users share one memory
      auto src = static_cast<size_t>(e.src);
      auto port = static_cast<size_t>(e.port);
      bool from_host = memory[src].output_on_host(port);
      bool to_host = memory[i].input_on_host(slot);
      if (from_host == to_host)
        continue;
      const auto& producer = nodes[src].name;
      auto key = std::make_tuple(producer, e.port, to_host);
      auto it = copies.find(key);
      if (it == copies.end()) {
        auto t = types.outputs[src][port].type;
        core::node_def copy;
        copy.name = "_copy_" + std::to_string(copies.size()) + "_" + producer
                    + "_" + std::to_string(e.port);
        copy.op = to_host ? ops::runtime_op::device_to_host
                          : ops::runtime_op::host_to_device;
        copy.device = device;
        copy.inputs = {nodes[i].inputs[k]};
        copy.attrs = {{"T", t}};
        it = copies.emplace(key, copy.name).first;
        added.push_back(std::move(copy));
      }
      nodes[i].inputs[k] = it->second;
    }
  }
  for (auto& copy : added) {
    auto t = std::get<core::dtype>(copy.attrs.at("T"));
    ACTORFLOW_RETURN_IF_ERROR(part.add(std::move(copy)));
    types.inputs.push_back({ops::arg_type{t, false}});
    types.outputs.push_back({ops::arg_type{t, false}});
  }
  return core::status::ok();
}

} // namespace

core::status insert_memory_copies(std::vector<typed_partition>& parts,
                                  const ops::kernel_registry& kernels) {
  for (auto& part : parts)
    if (has_device_memory(part.device))
      ACTORFLOW_RETURN_IF_ERROR(
        insert_copies(part, kernels).with_context("", "", part.device));
  return core::status::ok();
}

} // namespace actorflow::graph
