#include "actorflow/graph/io_ops.hpp"

#include "actorflow/graph/builder_ops.hpp"
#include "builder_util.hpp"

namespace actorflow::graph {

operation save(const scope& s, const output& filename,
               const std::vector<std::string>& names,
               const std::vector<output>& tensors) {
  core::tensor keys{core::dtype::string,
                    core::shape{static_cast<int64_t>(names.size())}};
  for (size_t i = 0; i < names.size(); ++i)
    keys.mutable_data<std::string>()[i] = names[i];
  std::vector<output> inputs{filename, constant(s.sub("tensor_names"), keys)};
  std::vector<core::dtype> types;
  for (const auto& t : tensors) {
    inputs.push_back(t);
    types.push_back(t.dtype());
  }
  return s.add_operation("Save", "Save", inputs, {{"T", std::move(types)}});
}

output restore(const scope& s, const output& filename, const std::string& name,
               core::dtype type) {
  auto key = constant(s.sub("tensor_name"), core::tensor::scalar(name));
  return detail::first(
    s.add_node("Restore", "Restore", {filename, key}, {{"dt", type}}));
}

namespace {

/// A string vector constant.
output strings(const scope& s, const std::vector<std::string>& values) {
  core::tensor t{core::dtype::string,
                 core::shape{static_cast<int64_t>(values.size())}};
  for (size_t i = 0; i < values.size(); ++i)
    t.mutable_data<std::string>()[i] = values[i];
  return constant(s, t);
}

/// The tensor `name` of the bundle at `prefix`, of dtype `type`.
output restore_v2(const scope& s, const output& prefix, const std::string& name,
                  core::dtype type) {
  return detail::first(
    s.add_node("RestoreV2", "RestoreV2",
               {prefix, strings(s.sub("tensor_names"), {name}),
                strings(s.sub("shape_and_slices"), {""})},
               {{"dtypes", std::vector<core::dtype>{type}}}));
}

} // namespace

saver make_saver(const scope& s,
                 const std::vector<std::pair<std::string, output>>& variables) {
  saver result;
  result.filename
    = placeholder(s.sub("filename"), core::dtype::string, core::shape{});
  std::vector<std::string> names;
  std::vector<output> values;
  std::vector<core::dtype> types;
  std::vector<operation> assigns, legacy;
  for (const auto& [name, var] : variables) {
    names.push_back(name);
    values.push_back(identity(s.sub("read_" + name), var));
    types.push_back(var.dtype());
    auto restored = restore_v2(s.sub("restore_" + name), result.filename, name,
                               var.dtype());
    assigns.push_back(assign(s.sub("assign_" + name), var, restored).op());
    result.restore_each.emplace_back(name, assigns.back());
    auto old = restore(s.sub("restore_afckpt_" + name), result.filename, name,
                       var.dtype());
    legacy.push_back(assign(s.sub("assign_afckpt_" + name), var, old).op());
    result.restore_each_legacy.emplace_back(name, legacy.back());
  }
  std::vector<output> inputs{result.filename,
                             strings(s.sub("save").sub("tensor_names"), names),
                             strings(s.sub("save").sub("shape_and_slices"),
                                     std::vector<std::string>(names.size()))};
  inputs.insert(inputs.end(), values.begin(), values.end());
  result.save
    = s.add_operation("SaveV2", "save", inputs, {{"dtypes", std::move(types)}});
  result.restore
    = no_op(s.sub("restore_all").with_control_dependencies(assigns));
  result.restore_legacy
    = no_op(s.sub("restore_all_afckpt").with_control_dependencies(legacy));
  return result;
}

output read_text_lines(const scope& s, const output& filename,
                       int64_t skip_header_lines) {
  return detail::first(s.add_node("ReadTextLines", "ReadTextLines", {filename},
                                  {{"skip_header_lines", skip_header_lines}}));
}

output read_idx(const scope& s, const output& filename, core::dtype type) {
  return detail::first(
    s.add_node("ReadIdx", "ReadIdx", {filename}, {{"dtype", type}}));
}

} // namespace actorflow::graph
