#include "actorflow/ops/op_registry.hpp"

#include <algorithm>

namespace actorflow::ops {

core::status op_registry::add(const op_def_builder& b) {
  op_def def;
  ACTORFLOW_RETURN_IF_ERROR(b.finish(&def));
  if (ops_.count(def.name) != 0)
    return core::already_exists_error("op ", def.name,
                                      " is already registered");
  auto key = def.name;
  ops_.emplace(std::move(key), std::move(def));
  return core::status::ok();
}

const op_def* op_registry::find(const std::string& name) const {
  auto i = ops_.find(name);
  return i == ops_.end() ? nullptr : &i->second;
}

std::vector<std::string> op_registry::names() const {
  std::vector<std::string> result;
  for (const auto& kvp : ops_)
    result.push_back(kvp.first);
  std::sort(result.begin(), result.end());
  return result;
}

} // namespace actorflow::ops
