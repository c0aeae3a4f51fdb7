#include "actorflow/ops/kernel_registry.hpp"

#include "actorflow/devices/device.hpp"

namespace actorflow::ops {

void kernel_registry::add(const std::string& op, const std::string& device_type,
                          core::dtype type, factory make,
                          std::string type_attr) {
  kernels_[{op, device_type}].push_back(
    registration{type, std::move(type_attr), std::move(make)});
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
  for (const auto& reg : i->second) {
    if (reg.type == core::dtype::invalid)
      return reg.make(ctx, out);
    auto a = node.attrs.find(reg.type_attr);
    if (a != node.attrs.end() && std::holds_alternative<core::dtype>(a->second)
        && std::get<core::dtype>(a->second) == reg.type)
      return reg.make(ctx, out);
  }
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
