#include "actorflow/ops/kernel_registry.hpp"

#include <algorithm>

#include "actorflow/devices/device.hpp"

namespace actorflow::ops {

bool memory_spec::input_on_host(size_t i) const noexcept {
  return all_host
         || std::find(host_inputs.begin(), host_inputs.end(),
                      static_cast<int>(i))
              != host_inputs.end();
}

bool memory_spec::output_on_host(size_t i) const noexcept {
  return all_host
         || std::find(host_outputs.begin(), host_outputs.end(),
                      static_cast<int>(i))
              != host_outputs.end();
}

void kernel_registry::add(const std::string& op, const std::string& device_type,
                          core::dtype type, factory make, std::string type_attr,
                          memory_spec memory) {
  kernels_[{op, device_type}].push_back(registration{
    type, std::move(type_attr), std::move(make), std::move(memory)});
}

const kernel_registry::registration*
kernel_registry::find(const core::node_def& node,
                      const std::string& device_type) const {
  auto i = kernels_.find({node.op, device_type});
  if (i == kernels_.end())
    return nullptr;
  for (const auto& reg : i->second) {
    if (reg.type == core::dtype::invalid)
      return &reg;
    auto a = node.attrs.find(reg.type_attr);
    if (a != node.attrs.end() && std::holds_alternative<core::dtype>(a->second)
        && std::get<core::dtype>(a->second) == reg.type)
      return &reg;
  }
  return nullptr;
}

bool kernel_registry::supports(const core::node_def& node,
                               const std::string& device_type) const {
  return find(node, device_type) != nullptr;
}

memory_spec kernel_registry::memory(const core::node_def& node,
                                    const std::string& device_type) const {
  if (const auto* reg = find(node, device_type))
    return reg->memory;
  memory_spec all;
  all.all_host = true;
  return all;
}

std::vector<std::pair<std::string, core::dtype>>
kernel_registry::registered(const std::string& device_type) const {
  std::vector<std::pair<std::string, core::dtype>> result;
  for (const auto& [key, regs] : kernels_)
    if (key.second == device_type)
      for (const auto& reg : regs)
        result.emplace_back(key.first, reg.type);
  return result;
}

bool kernel_registry::supports(const std::string& op,
                               const std::string& device_type) const {
  return kernels_.count({op, device_type}) != 0;
}

core::status kernel_registry::create(kernel_construction& ctx,
                                     std::unique_ptr<kernel>* out) const {
  const auto& node = ctx.node();
  const auto& dev_type = ctx.device().type();
  auto i = kernels_.find({node.op, dev_type});
  if (i == kernels_.end())
    return core::not_found_error("no kernel for op ", node.op,
                                 " on device type ", dev_type);
  if (const auto* reg = find(node, dev_type))
    return reg->make(ctx, out);
  std::string type_name = "?";
  if (!i->second.empty()) {
    auto a = node.attrs.find(i->second.front().type_attr);
    if (a != node.attrs.end() && std::holds_alternative<core::dtype>(a->second))
      type_name = core::to_string(std::get<core::dtype>(a->second));
  }
  return core::not_found_error("no kernel for op ", node.op, " on device type ",
                               dev_type, " with dtype ", type_name);
}

} // namespace actorflow::ops
