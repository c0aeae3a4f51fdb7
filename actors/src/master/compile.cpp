// Compiling a run signature for the master: graph::compile_run over the
// devices of every worker, the partitions grouped by worker.

#include "master/compile.hpp"

#include "actorflow/core/logging.hpp"
#include "actorflow/ops/registration.hpp"

namespace actorflow::actors::detail {

std::string signature_key(const run_request& req,
                          const graph::pass_selection& passes) {
  std::string key = passes.to_string() + "|";
  for (const auto& f : req.feeds)
    key += f.first + ",";
  key += "|";
  for (const auto& f : req.fetches)
    key += f + ",";
  key += "|";
  for (const auto& t : req.targets)
    key += t + ",";
  return key;
}

/// The graph passes `req` runs: its own choice or the session's.
const graph::pass_selection& pass_selection_of(const master_state& st,
                                               const run_request& req) {
  return req.passes ? *req.passes : st.options.pass_selection;
}

/// Compiles the graph for `req` (`graph::compile_run`) and groups the
/// partitions by worker.
core::status compile_plan(self_ptr self, const run_request& req,
                          plan_ptr* out) {
  auto& st = self->state;
  auto& rt = *st.rt;
  std::vector<std::string> devices;
  std::map<std::string, size_t> worker_of;
  for (size_t w = 0; w < st.workers.size(); ++w)
    for (const auto& d : st.workers[w].devices) {
      devices.push_back(d);
      worker_of.emplace(d, w);
    }
  if (!st.pinned_current) {
    // Nodes placed before keep their devices; a whole graph that cannot
    // be placed (a node no run reaches asks for a missing device) leaves
    // each run to place its own nodes.
    auto pst
      = graph::place_stateful(st.g, st.types, rt.ops(), devices, rt.kernels(),
                              rt.default_device(), &st.pinned);
    if (!pst.is_ok())
      core::log().debug("stateful nodes not pinned: {}", pst.to_string());
    st.pinned_current = true;
  }
  graph::run_signature sig;
  for (const auto& f : req.feeds)
    sig.feeds.push_back(f.first);
  sig.fetches = req.fetches;
  sig.targets = req.targets;
  auto standard = graph::pass_pipeline::standard();
  graph::compile_options opts{rt.ops(),
                              rt.kernels(),
                              st.options.passes ? *st.options.passes : standard,
                              pass_selection_of(st, req),
                              std::move(devices),
                              rt.default_device(),
                              &st.pinned,
                              st.options.wire_dtype,
                              st.options.schedule_recvs};
  graph::compiled_run run;
  ACTORFLOW_RETURN_IF_ERROR(
    graph::compile_run(st.g, st.types, sig, opts, &run));
  for (const auto& r : run.rewrites)
    core::log().debug("graph pass {}: {}", r.pass, r.what);
  auto plan = std::make_shared<compiled_plan>();
  plan->feeds = std::move(run.feeds);
  plan->fetch_names = std::move(run.fetches);
  plan->placement = std::move(run.placement);
  std::map<size_t, size_t> part_of_worker;
  for (auto& part : run.partitions) {
    auto w = worker_of.at(part.device);
    auto [it, fresh] = part_of_worker.try_emplace(w, plan->parts.size());
    if (fresh) {
      plan->parts.emplace_back();
      plan->parts.back().worker = w;
    }
    auto& wp = plan->parts[it->second];
    for (const auto& node : part.g.nodes()) {
      if (st.options.log_device_placement)
        core::log().info("placement: {} ({}) on {}", node.name, node.op,
                         node.device);
      if (core::log().should_log(spdlog::level::trace)) {
        std::string inputs;
        for (const auto& in : node.inputs)
          inputs += (inputs.empty() ? "" : ", ") + in;
        core::log().trace("compiled: {} ({}) <- {}", node.name, node.op,
                          inputs);
      }
      if (node.op == ops::runtime_op::feed)
        wp.feeds.push_back(
          static_cast<int32_t>(std::get<int64_t>(node.attrs.at("index"))));
    }
    plan->partition_graphs.push_back(part.g);
    wp.set.graphs.push_back(std::move(part.g));
    wp.set.types.push_back(std::move(part.types));
  }
  core::log().debug("compiled run signature with {} nodes on {} workers",
                    run.nodes, plan->parts.size());
  *out = std::move(plan);
  return core::status::ok();
}

} // namespace actorflow::actors::detail
