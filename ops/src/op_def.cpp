#include "actorflow/ops/op_def.hpp"

#include <algorithm>

namespace actorflow::ops {

const attr_def* op_def::find_attr(const std::string& attr_name) const {
  for (const auto& a : attrs)
    if (a.name == attr_name)
      return &a;
  return nullptr;
}

core::status op_def::check_attrs(core::attr_map& values) const {
  for (const auto& [key, value] : values) {
    if (!key.empty() && key.front() == '_')
      continue;
    const auto* def = find_attr(key);
    if (def == nullptr)
      return core::invalid_argument_error("op ", name, " has no attr '", key,
                                          "'");
    auto got = core::attr_type_name(value);
    if (got != def->type)
      return core::invalid_argument_error("attr '", key, "' of op ", name,
                                          " has type ", got, ", expected ",
                                          def->type);
    if (!def->allowed.empty()) {
      auto t = std::get<core::dtype>(value);
      if (std::find(def->allowed.begin(), def->allowed.end(), t)
          == def->allowed.end())
        return core::invalid_argument_error("attr '", key, "' of op ", name,
                                            " is ", core::to_string(t),
                                            ", which is not allowed");
    }
  }
  for (const auto& def : attrs) {
    if (values.count(def.name) != 0)
      continue;
    if (!def.default_value)
      return core::invalid_argument_error("op ", name, " is missing attr '",
                                          def.name, "'");
    values.emplace(def.name, *def.default_value);
  }
  return core::status::ok();
}

namespace {

core::status resolve(const op_def& op, const std::vector<arg_def>& args,
                     const core::attr_map& values, std::vector<arg_type>* out) {
  out->clear();
  for (const auto& arg : args) {
    arg_type t;
    t.is_ref = arg.is_ref;
    if (arg.type_attr.empty()) {
      t.type = arg.type;
    } else {
      auto i = values.find(arg.type_attr);
      if (i != values.end()
          && std::holds_alternative<std::vector<core::dtype>>(i->second)) {
        // A list(type) attr: one argument per listed dtype.
        const auto& types = std::get<std::vector<core::dtype>>(i->second);
        if (static_cast<int64_t>(types.size()) > op_def::max_args)
          return core::invalid_argument_error(
            "op ", op.name, " gets ", types.size(), " types in '",
            arg.type_attr, "', more than the limit of ", op_def::max_args);
        for (auto x : types)
          out->push_back(arg_type{x, arg.is_ref});
        continue;
      }
      if (i == values.end() || !std::holds_alternative<core::dtype>(i->second))
        return core::invalid_argument_error(
          "op ", op.name, " needs type attr '", arg.type_attr, "'");
      t.type = std::get<core::dtype>(i->second);
    }
    int64_t count = 1;
    if (!arg.number_attr.empty()) {
      auto i = values.find(arg.number_attr);
      if (i == values.end() || !std::holds_alternative<int64_t>(i->second))
        return core::invalid_argument_error("op ", op.name, " needs int attr '",
                                            arg.number_attr, "'");
      count = std::get<int64_t>(i->second);
      if (count < 1 || count > op_def::max_args)
        return core::invalid_argument_error(
          "op ", op.name, " needs 1 <= ", arg.number_attr,
          " <= ", op_def::max_args, ", got ", count);
    }
    out->insert(out->end(), static_cast<size_t>(count), t);
  }
  return core::status::ok();
}

} // namespace

core::status op_def::resolve_types(const core::attr_map& values,
                                   std::vector<arg_type>* in,
                                   std::vector<arg_type>* out) const {
  ACTORFLOW_RETURN_IF_ERROR(resolve(*this, inputs, values, in));
  return resolve(*this, outputs, values, out);
}

} // namespace actorflow::ops
