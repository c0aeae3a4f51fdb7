// The compile path of a run, step by step: rewrite and prune, graph passes,
// validate, place, partition, host/device copies.

#include "actorflow/graph/compile_run.hpp"

#include "compile/control_flow_info.hpp"
#include "compile/memory_copies.hpp"
#include "compile/partition.hpp"
#include "compile/place.hpp"
#include "compile/rewrite.hpp"
#include "compile/type_check.hpp"

namespace actorflow::graph {

namespace {

/// What the graph expects of each fed tensor of `sig`.
std::vector<compiled_feed> feeds_of(const graph& g, const graph_types& types,
                                    const run_signature& sig) {
  std::vector<compiled_feed> result;
  for (const auto& name : sig.feeds) {
    core::input_ref r;
    core::input_ref::parse(name, &r);
    auto idx = static_cast<size_t>(g.index_of(r.node));
    const auto& node = g.nodes()[idx];
    compiled_feed f{node.name, node.op,
                    types.outputs[idx][static_cast<size_t>(r.port)].type};
    if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault")
      f.shape = std::get<core::shape>(node.attrs.at("shape"));
    result.push_back(std::move(f));
  }
  return result;
}

} // namespace

core::status compile_run(const graph& g, const graph_types& types,
                         const run_signature& sig, const compile_options& opts,
                         compiled_run* out) {
  if (opts.wire_dtype != core::dtype::invalid
      && opts.wire_dtype != core::dtype::bfloat16
      && opts.wire_dtype != core::dtype::float16)
    return core::invalid_argument_error(
      "values can travel between tasks as bfloat16 or float16, not ",
      core::to_string(opts.wire_dtype));
  compiled_run result;
  graph run_graph;
  ACTORFLOW_RETURN_IF_ERROR(rewrite_for_run(g, types, sig, &run_graph));
  pass_context ctx{opts.ops,
                   opts.kernels,
                   {sig.targets.begin(), sig.targets.end()},
                   opts.default_device};
  ACTORFLOW_RETURN_IF_ERROR(
    opts.passes.run(run_graph, ctx, opts.selection, &result.rewrites));
  // The run graph's edges (the graph keeps them) and frames, built once
  // here, serve placement and partitioning too: neither changes a node's
  // inputs.
  graph_types run_types;
  control_flow_info info;
  ACTORFLOW_RETURN_IF_ERROR(
    validate(run_graph, opts.ops, &run_types, true, &info));
  result.nodes = run_graph.size();
  if (opts.pinned != nullptr)
    pin_devices(run_graph, *opts.pinned);
  ACTORFLOW_RETURN_IF_ERROR(place(run_graph, run_types, opts.devices,
                                  opts.kernels, opts.default_device));
  std::map<std::string, graph> parts;
  partition_options popts{&info, opts.wire_dtype,
                          opts.schedule_recvs ? &opts.ops : nullptr};
  ACTORFLOW_RETURN_IF_ERROR(partition(run_graph, run_types, &parts, popts));
  for (auto& [device, part] : parts) {
    typed_partition p{device, std::move(part), {}};
    ACTORFLOW_RETURN_IF_ERROR(
      resolve_types(p.g, opts.ops, &p.types).with_context("", "", device));
    result.partitions.push_back(std::move(p));
  }
  ACTORFLOW_RETURN_IF_ERROR(
    insert_memory_copies(result.partitions, opts.kernels));
  for (const auto& p : result.partitions)
    for (const auto& node : p.g.nodes())
      result.placement.emplace(node.name, node.device);
  result.feeds = feeds_of(g, types, sig);
  result.fetches = sig.fetches;
  *out = std::move(result);
  return core::status::ok();
}

} // namespace actorflow::graph
