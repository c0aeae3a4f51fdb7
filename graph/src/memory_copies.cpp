#include <map>
#include <tuple>

#include "actorflow/core/device_name.hpp"
#include "actorflow/graph/passes.hpp"
#include "actorflow/ops/kernel_registry.hpp"
#include "actorflow/ops/registration.hpp"

namespace actorflow::graph {

namespace {

/// Whether tensors on `device` live in memory of its own (a GPU's).
bool has_device_memory(const std::string& device) {
  auto name = core::device_name::parse(device);
  return name && name->type && *name->type != "cpu";
}

/// Inserts the copies of one partition on a device with memory of its own.
core::status insert_copies(graph& part, const std::string& device,
                           const ops::op_registry& ops,
                           const ops::kernel_registry& kernels) {
  graph_types types;
  ACTORFLOW_RETURN_IF_ERROR(validate(part, ops, &types, true));
  const auto& type = *core::device_name::parse(device)->type;
  std::vector<ops::memory_spec> memory;
  memory.reserve(part.size());
  for (const auto& node : part.nodes())
    memory.push_back(kernels.memory(node, type));
  // One copy per produced tensor and direction, shared by its consumers.
  std::map<std::tuple<std::string, int, bool>, std::string> copies;
  std::vector<core::node_def> added;
  auto& nodes = part.mutable_nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    size_t k = 0;
    for (auto& text : nodes[i].inputs) {
      core::input_ref r;
      core::input_ref::parse(text, &r);
      if (r.control)
        continue;
      auto slot = k++;
      if (types.inputs[i][slot].is_ref)
        continue; // a variable and its users share one memory
      auto src = static_cast<size_t>(part.index_of(r.node));
      bool from_host = memory[src].output_on_host(static_cast<size_t>(r.port));
      bool to_host = memory[i].input_on_host(slot);
      if (from_host == to_host)
        continue;
      auto key = std::make_tuple(r.node, r.port, to_host);
      auto it = copies.find(key);
      if (it == copies.end()) {
        core::node_def copy;
        copy.name = "_copy_" + std::to_string(copies.size()) + "_" + r.node
                    + "_" + std::to_string(r.port);
        copy.op = to_host ? ops::runtime_op::device_to_host
                          : ops::runtime_op::host_to_device;
        copy.device = device;
        copy.inputs = {text};
        copy.attrs
          = {{"T", types.outputs[src][static_cast<size_t>(r.port)].type}};
        it = copies.emplace(key, copy.name).first;
        added.push_back(std::move(copy));
      }
      text = it->second;
    }
  }
  for (auto& copy : added)
    ACTORFLOW_RETURN_IF_ERROR(part.add(std::move(copy)));
  return core::status::ok();
}

} // namespace

core::status insert_memory_copies(std::map<std::string, graph>& parts,
                                  const ops::op_registry& ops,
                                  const ops::kernel_registry& kernels) {
  for (auto& [device, part] : parts)
    if (has_device_memory(device))
      ACTORFLOW_RETURN_IF_ERROR(
        insert_copies(part, device, ops, kernels).with_context("", "", device));
  return core::status::ok();
}

} // namespace actorflow::graph
