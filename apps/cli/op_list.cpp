// `actorflow ops`: the registered ops, or those a GraphDef needs that we
// lack.

#include "cli/op_list.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "actorflow/interop/tensorflow/graph_def.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/registration.hpp"

namespace actorflow::apps {

namespace {

std::string render_args(const std::vector<ops::arg_def>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty())
      out += ", ";
    out += a.name + ": ";
    if (!a.number_attr.empty())
      out += a.number_attr + " * ";
    auto type = a.type_attr.empty() ? std::string{core::to_string(a.type)}
                                    : a.type_attr;
    out += a.is_ref ? "Ref(" + type + ")" : type;
  }
  return out;
}

std::string render_attrs(const std::vector<ops::attr_def>& attrs) {
  std::string out;
  for (const auto& a : attrs) {
    if (!out.empty())
      out += ", ";
    out += a.name + ": ";
    if (a.allowed.empty()) {
      out += a.type;
    } else {
      out += "{";
      for (size_t i = 0; i < a.allowed.size(); ++i)
        out
          += (i == 0 ? "" : ", ") + std::string{core::to_string(a.allowed[i])};
      out += "}";
    }
    if (a.default_value)
      out += " = " + core::to_string(*a.default_value);
  }
  return out;
}

/// `actorflow ops --missing FILE`: each op FILE uses that `registry`
/// lacks, with how many nodes use it and the first few.
int list_missing(const ops::op_registry& registry, const std::string& path) {
  std::vector<interop::tensorflow::missing_op> missing;
  if (auto st = interop::tensorflow::find_missing_ops(path, registry, &missing);
      !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return EXIT_FAILURE;
  }
  if (missing.empty()) {
    std::printf("every op of %s is one actorflow has\n", path.c_str());
    return EXIT_SUCCESS;
  }
  std::printf("%s uses %zu op%s actorflow lacks:\n", path.c_str(),
              missing.size(), missing.size() == 1 ? "" : "s");
  constexpr size_t shown = 3;
  for (const auto& m : missing) {
    std::string nodes;
    for (size_t i = 0; i < std::min(shown, m.nodes.size()); ++i)
      nodes += (i == 0 ? "" : ", ") + m.nodes[i];
    if (m.nodes.size() > shown)
      nodes += ", ...";
    std::printf("  %s  (%zu node%s: %s)\n", m.op.c_str(), m.nodes.size(),
                m.nodes.size() == 1 ? "" : "s", nodes.c_str());
  }
  return EXIT_FAILURE;
}

} // namespace

int list_ops(const op_list_options& options) {
  ops::op_registry registry;
  if (auto st = ops::register_ops(registry); !st.is_ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return EXIT_FAILURE;
  }
  if (!options.missing.empty())
    return list_missing(registry, options.missing);
  if (!options.name.empty() && registry.find(options.name) == nullptr) {
    std::fprintf(stderr,
                 "no op named '%s' (run `actorflow ops` for the list)\n",
                 options.name.c_str());
    return EXIT_FAILURE;
  }
  if (options.markdown)
    std::printf("| op | inputs | outputs | attrs |\n| --- | --- | --- | --- "
                "|\n");
  for (const auto& name : registry.names()) {
    if ((!options.name.empty() && name != options.name)
        || (!options.internal && options.name.empty() && name.front() == '_'))
      continue;
    const auto& op = *registry.find(name);
    auto in = render_args(op.inputs), out = render_args(op.outputs),
         attrs = render_attrs(op.attrs);
    if (op.is_stateful)
      attrs += attrs.empty() ? "(stateful)" : " (stateful)";
    if (options.markdown)
      std::printf("| %s | %s | %s | %s |\n", name.c_str(), in.c_str(),
                  out.c_str(), attrs.c_str());
    else
      std::printf("%s(%s) -> (%s)%s%s\n", name.c_str(), in.c_str(), out.c_str(),
                  attrs.empty() ? "" : "\n    ", attrs.c_str());
  }
  return EXIT_SUCCESS;
}

void add_ops_command(CLI::App& app, command_list* out) {
  auto list = std::make_shared<op_list_options>();
  auto* cmd = app.add_subcommand(
    "ops", "List the registered ops: inputs, outputs and attrs with their "
           "allowed dtypes and defaults");
  cmd->add_option("name", list->name, "Show only this op");
  cmd->add_flag("--markdown", list->markdown,
                "Print a Markdown table (docs/ops.md is this output)");
  cmd->add_flag("--internal", list->internal,
                "Include the runtime's internal ops (_Send, _Recv, ...)");
  cmd
    ->add_option("--missing", list->missing,
                 "List the ops a TensorFlow GraphDef file (.pb, .pbtxt) "
                 "uses that actorflow lacks, with the nodes that use them; "
                 "exits 1 when there are any")
    ->check(CLI::ExistingFile);
  out->push_back({cmd, [list] { return list_ops(*list); }});
}

} // namespace actorflow::apps
