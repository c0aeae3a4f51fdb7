// `actorflow graph show`: a graph as its feeds and fetches and a node
// list, in Graphviz's dot, or as the partitions a step placed.

#include "cli/graph_show.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "actorflow/graph/dot.hpp"
#include "actorflow/interop/any_graph.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/registration.hpp"

namespace actorflow::apps {

namespace {

int fail(const core::status& st) {
  std::fprintf(stderr, "actorflow graph show: %s\n", st.to_string().c_str());
  return EXIT_FAILURE;
}

/// What a user feeds and may fetch, as comment lines: each placeholder
/// with its dtype and shape, then each node no other node reads (a NoOp
/// as a target).
std::string feeds_and_fetches(const graph::graph& g) {
  std::ostringstream out;
  std::set<std::string> read;
  for (const auto& node : g.nodes())
    for (const auto& input : node.inputs) {
      core::input_ref ref;
      if (core::input_ref::parse(input, &ref))
        read.insert(ref.node);
    }
  auto attr = [](const core::node_def& node, const char* name) {
    auto i = node.attrs.find(name);
    return i == node.attrs.end() ? std::string{"?"}
                                 : core::to_string(i->second);
  };
  for (const auto& node : g.nodes())
    if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault")
      out << "# feed " << node.name << ": " << attr(node, "dtype") << " "
          << attr(node, "shape")
          << (node.op == "PlaceholderWithDefault" ? " (has a default)" : "")
          << "\n";
  for (const auto& node : g.nodes())
    if (read.count(node.name) == 0 && node.op != "Const")
      out << (node.op == "NoOp" ? "# target " : "# fetch ") << node.name << " ("
          << node.op << ")\n";
  return out.str();
}

/// One line per node: `name = Op(inputs) @device`.
std::string node_list(const graph::graph& g) {
  std::ostringstream out;
  for (const auto& node : g.nodes()) {
    out << node.name << " = " << node.op << "(";
    for (size_t i = 0; i < node.inputs.size(); ++i)
      out << (i > 0 ? ", " : "") << node.inputs[i];
    out << ")";
    if (!node.device.empty())
      out << " @" << node.device;
    out << "\n";
  }
  return out.str();
}

core::status render(const graph_show_options& o, std::string* text) {
  if (o.partitions) {
    actors::run_options ro;
    ro.output_partition_graphs = true;
    run_outcome r;
    ACTORFLOW_RETURN_IF_ERROR(run_step(o.run, ro, &r));
    const auto& parts = r.metadata.partition_graphs;
    if (o.dot)
      return graph::partitions_to_dot(parts, text);
    for (const auto& g : parts)
      *text += "# partition on "
               + (g.size() > 0 ? g.nodes()[0].device : std::string{"?"}) + "\n"
               + node_list(g);
    return core::status::ok();
  }
  ops::op_registry registry;
  ACTORFLOW_RETURN_IF_ERROR(ops::register_ops(registry));
  graph::graph g;
  ACTORFLOW_RETURN_IF_ERROR(interop::load_any_graph(o.run.graph, registry, &g));
  if (o.dot)
    return graph::to_dot(g, text);
  *text = feeds_and_fetches(g) + node_list(g);
  return core::status::ok();
}

} // namespace

int show_graph(const graph_show_options& o) {
  std::string text;
  auto st = render(o, &text);
  if (!st.is_ok())
    return fail(st);
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return EXIT_SUCCESS;
  }
  std::ofstream out{o.output, std::ios::binary | std::ios::trunc};
  out << text;
  out.close();
  if (!out)
    return fail(core::not_found_error("cannot write '", o.output, "'"));
  return EXIT_SUCCESS;
}

void add_graph_command(CLI::App& app, command_list* out) {
  auto show = std::make_shared<graph_show_options>();
  auto* graph = app.add_subcommand("graph", "Look at saved graphs")
                  ->require_subcommand(1);
  auto* cmd = graph->add_subcommand(
    "show", "Print a graph (a TensorFlow GraphDef, .pb or .pbtxt, or a graph "
            "file of actorflow's) as its feeds (dtype, shape), the outputs "
            "nothing reads and a node list or, with --dot, in Graphviz's "
            "dot language (dot -Tsvg): loop frames as clusters, devices as "
            "colours, control edges dashed");
  cmd->add_option("graph", show->run.graph, "The graph file")
    ->required()
    ->check(CLI::ExistingFile);
  cmd->add_flag("--dot", show->dot, "Print in dot");
  cmd->add_flag("--partitions", show->partitions,
                "Run one step (--feed, --fetch, --target, --config as "
                "in actorflow run) and print the partitions it placed, "
                "one per device, Send/Recv pairs joined");
  cmd->add_option("-o,--output", show->output,
                  "Write to this file rather than standard output");
  add_step_options(cmd, &show->run);
  out->push_back({cmd, [show] { return show_graph(*show); }});
}

} // namespace actorflow::apps
