#include "master.hpp"

#include <map>
#include <new>
#include <unordered_map>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actorflow/core/caf_error.hpp"
#include "actorflow/core/logging.hpp"
#include "actorflow/graph/passes.hpp"
#include "actorflow/graph/validate.hpp"
#include "node_actor_impl.hpp"
#include "partition_plan.hpp"

namespace actorflow::actors {

namespace {

/// Everything compiled for one run signature.
struct compiled_plan {
  std::vector<std::shared_ptr<partition_plan>> parts;
  /// Expected dtype and (partial) shape of each feed, and its node.
  std::vector<core::dtype> feed_types;
  std::vector<core::shape> feed_shapes;
  std::vector<std::pair<std::string, std::string>> feed_nodes; ///< name, op
  std::vector<std::string> fetch_names;
  /// Each node's device, for run_metadata.
  std::map<std::string, std::string> placement;

  void shutdown() {
    for (auto& p : parts)
      p->shutdown();
  }
};

/// One step in flight.
struct step_state {
  caf::typed_response_promise<run_result> promise;
  std::shared_ptr<compiled_plan> plan;
  std::vector<core::tensor> fetched;
  std::vector<value_state> fetch_states;
  bool want_metadata = false;
  step_tracker* tracker = nullptr;
  core::status error;
};

/// Returns what `fn` returns, or the exception it threw as a status: the
/// master answers a request that fails this way rather than dying of it.
template <class F>
core::status guarded(const char* doing, F&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return core::resource_exhausted_error(doing, " ran out of memory");
  } catch (const std::exception& e) {
    return core::internal_error(doing, " threw: ", e.what());
  }
}

std::string signature_key(const run_request& req) {
  std::string key;
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

} // namespace

struct master_state {
  std::shared_ptr<runtime_context> rt;
  session_options options;
  graph::graph g;
  graph::graph_types types;
  std::map<std::string, std::shared_ptr<compiled_plan>> plans;
  std::unordered_map<uint64_t, step_state> steps;
  /// Shared with the partition plans, whose node actors use them.
  std::shared_ptr<step_trackers> trackers = std::make_shared<step_trackers>();
  bool closed = false;

  void shutdown() {
    for (auto& kvp : plans)
      kvp.second->shutdown();
    plans.clear();
    for (auto& kvp : steps)
      kvp.second.promise.deliver(core::to_error(
        core::cancelled_error("the session was closed during the step")));
    steps.clear();
  }

  ~master_state() {
    shutdown();
  }

  static inline const char* name = "actorflow.master";
};

namespace {

using self_ptr = master_actor::stateful_pointer<master_state>;

core::status compile(self_ptr self, const run_request& req,
                     std::shared_ptr<compiled_plan>* out) {
  auto& st = self->state;
  auto& rt = *st.rt;
  graph::run_signature sig;
  for (const auto& f : req.feeds)
    sig.feeds.push_back(f.first);
  sig.fetches = req.fetches;
  sig.targets = req.targets;
  graph::graph pruned;
  ACTORFLOW_RETURN_IF_ERROR(
    graph::rewrite_for_run(st.g, st.types, sig, &pruned));
  graph::graph_types types;
  ACTORFLOW_RETURN_IF_ERROR(graph::validate(pruned, rt.ops, &types, true));
  ACTORFLOW_RETURN_IF_ERROR(
    graph::place(pruned, types, rt.devices, rt.kernels, rt.default_device));
  std::map<std::string, graph::graph> parts;
  ACTORFLOW_RETURN_IF_ERROR(graph::partition(pruned, types, &parts));
  auto plan = std::make_shared<compiled_plan>();
  // Feed checks: the dtype of the fed tensor and the Placeholder's shape.
  for (const auto& f : req.feeds) {
    core::input_ref r;
    core::input_ref::parse(f.first, &r);
    auto idx = st.g.index_of(r.node);
    plan->feed_types.push_back(
      st.types.outputs[static_cast<size_t>(idx)][static_cast<size_t>(r.port)]
        .type);
    const auto& node = st.g.nodes()[static_cast<size_t>(idx)];
    auto s = core::shape::unknown();
    if (node.op == "Placeholder")
      s = std::get<core::shape>(node.attrs.at("shape"));
    plan->feed_shapes.push_back(std::move(s));
    plan->feed_nodes.emplace_back(node.name, node.op);
  }
  plan->fetch_names = req.fetches;
  for (const auto& [device, part] : parts)
    for (const auto& node : part.nodes()) {
      plan->placement.emplace(node.name, node.device);
      if (st.options.log_device_placement)
        core::log().info("placement: {} ({}) on {}", node.name, node.op,
                         node.device);
    }
  master_actor master = self;
  auto spawn = [self](std::shared_ptr<partition_plan> p, int group) {
    return spawn_nodes(self->system(), std::move(p), group);
  };
  for (auto& kvp : parts) {
    std::shared_ptr<partition_plan> part;
    auto bst = partition_plan::build(kvp.second, rt, master, spawn, &part);
    if (!bst.is_ok()) {
      plan->shutdown();
      return bst;
    }
    part->context = st.rt;
    part->trackers = st.trackers;
    plan->parts.push_back(std::move(part));
  }
  auto wst = partition_plan::wire(plan->parts);
  if (!wst.is_ok()) {
    plan->shutdown();
    return wst;
  }
  core::log().debug("compiled run signature with {} nodes in {} partitions",
                    pruned.size(), plan->parts.size());
  *out = std::move(plan);
  return core::status::ok();
}

void finish_step(self_ptr self, uint64_t id, step_state& step);

caf::result<run_result> start_step(self_ptr self, run_request& req) {
  auto& st = self->state;
  if (st.closed)
    return core::to_error(
      core::failed_precondition_error("the session is closed"));
  auto key = signature_key(req);
  auto& plan = st.plans[key];
  if (!plan) {
    auto cst = guarded("compiling the graph",
                       [&] { return compile(self, req, &plan); });
    if (!cst.is_ok()) {
      st.plans.erase(key);
      return core::to_error(cst);
    }
  }
  for (size_t i = 0; i < req.feeds.size(); ++i) {
    const auto& [name, value] = req.feeds[i];
    const auto& [node, op] = plan->feed_nodes[i];
    if (value.dtype() != plan->feed_types[i])
      return core::to_error(
        core::invalid_argument_error(
          "feed '", name, "' has dtype ", core::to_string(value.dtype()),
          ", the graph expects ", core::to_string(plan->feed_types[i]))
          .with_context(node, op));
    if (!plan->feed_shapes[i].compatible_with(value.shape()))
      return core::to_error(
        core::invalid_argument_error(
          "feed '", name, "' has shape ", value.shape().to_string(),
          ", the placeholder expects ", plan->feed_shapes[i].to_string())
          .with_context(node, op));
  }
  auto id = st.rt->resources.next_step_id();
  auto& step = st.steps[id];
  step.promise = self->make_response_promise<run_result>();
  step.plan = plan;
  step.want_metadata = req.want_metadata;
  step.fetched.resize(plan->fetch_names.size());
  step.fetch_states.resize(plan->fetch_names.size(), value_state::failed);
  // One token per root message, minted before the first is sent.
  step.tracker = st.trackers->acquire(id);
  int64_t roots = 0;
  for (const auto& part : plan->parts)
    roots += static_cast<int64_t>(part->roots.size());
  step.tracker->mint(roots);
  if (roots == 0) {
    auto result = step.promise;
    finish_step(self, id, step);
    return result;
  }
  tag t{id, 0, 0, nullptr, step.tracker};
  for (auto& part : plan->parts)
    for (auto root : part->roots) {
      const auto& item = part->nodes[static_cast<size_t>(root)];
      value_msg m{t, control_slot, value_state::live, {}, root};
      if (item.kind == node_kind::feed) {
        m.slot = 0;
        m.value.value = req.feeds[static_cast<size_t>(item.index_attr)].second;
      }
      self->send(part->actors[static_cast<size_t>(root)], std::move(m));
    }
  return step.promise;
}

void finish_step(self_ptr self, uint64_t id, step_state& step) {
  // No message of the step can arrive any more: its stacks go.
  self->state.rt->resources.drop_step(id);
  // Nodes that keep loop constants per step drop this step's.
  for (const auto& part : step.plan->parts)
    for (const auto& a : part->step_state_actors)
      self->send(a, step_done_msg{id});
  if (step.error.is_ok())
    for (size_t i = 0; i < step.fetched.size(); ++i)
      if (step.fetch_states[i] != value_state::live) {
        step.error = core::invalid_argument_error(
          "fetched tensor '", step.plan->fetch_names[i], "' has no value",
          step.fetch_states[i] == value_state::dead ? " (it is dead)" : "");
        break;
      }
  if (step.error.is_ok()) {
    run_result result{std::move(step.fetched), {}};
    if (step.want_metadata)
      result.metadata.placement = step.plan->placement;
    step.promise.deliver(std::move(result));
  } else {
    core::log().debug("step {} failed: {}", id, step.error.to_string());
    step.promise.deliver(core::to_error(step.error));
  }
  self->state.trackers->release(step.tracker);
  self->state.steps.erase(id);
}

} // namespace

namespace {

master_actor::behavior_type
master_impl(master_actor::stateful_pointer<master_state> self,
            std::shared_ptr<runtime_context> rt, session_options options) {
  self->state.rt = std::move(rt);
  self->state.options = options;
  return {
    [self](extend_atom, graph::graph& more) -> caf::result<done_atom> {
      auto& st = self->state;
      if (st.closed)
        return core::to_error(
          core::failed_precondition_error("the session is closed"));
      graph::graph merged = st.g;
      graph::graph_types types;
      auto est = guarded("extending the graph", [&] {
        ACTORFLOW_RETURN_IF_ERROR(merged.extend(more));
        return graph::validate(merged, st.rt->ops, &types);
      });
      if (!est.is_ok())
        return core::to_error(est);
      st.g = std::move(merged);
      st.types = std::move(types);
      return done_atom::value;
    },
    [self](run_atom, run_request& req) { return start_step(self, req); },
    [self](close_atom) -> done_atom {
      self->state.shutdown();
      self->state.closed = true;
      return done_atom::value;
    },
    [self](fetch_msg& m) {
      auto i = self->state.steps.find(m.step);
      if (i == self->state.steps.end())
        return;
      auto idx = static_cast<size_t>(m.index);
      i->second.fetched[idx] = std::move(m.value);
      i->second.fetch_states[idx] = m.state;
    },
    [self](step_error_msg& m) {
      auto i = self->state.steps.find(m.step);
      if (i != self->state.steps.end() && i->second.error.is_ok())
        i->second.error = std::move(m.error);
    },
    [self](step_complete_msg m) {
      auto i = self->state.steps.find(m.step);
      if (i != self->state.steps.end())
        finish_step(self, m.step, i->second);
    },
  };
}

} // namespace

master_actor spawn_master(caf::actor_system& sys,
                          std::shared_ptr<runtime_context> rt,
                          session_options options) {
  return sys.spawn(master_impl, std::move(rt), options);
}

} // namespace actorflow::actors
