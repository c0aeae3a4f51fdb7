// Synchronous replicas' gradient accumulators and token queues
// (TensorFlow's SyncReplicasOptimizer).

#include "training/sync_replicas.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/collective_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/queue.hpp"

namespace actorflow::apps {

using core::dtype;

sync_replicas_ops sync_replicas(
  const graph::scope& s, const std::vector<std::optional<graph::output>>& grads,
  const std::vector<graph::output>& vars, const graph::output& step,
  int replicas, const std::string& device, const graph::optimizer& opt) {
  sync_replicas_ops ops;
  auto sync = s.sub("sync_replicas");
  auto queues = sync.with_device(device);
  graph::queue::options token{{dtype::int32}, {core::shape{}}, -1};
  auto arrived = graph::queue::fifo(queues.sub("arrived"), token);
  auto one = graph::constant(queues, int32_t{1});
  // Each replica adds its gradients to the accumulators, then says so.
  std::vector<graph::output> accumulators;
  std::vector<graph::operation> added;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!grads[i])
      continue;
    const auto& v = vars[i];
    auto acc = graph::variable(sync.sub(v.node_name() + "_acc"),
                               graph::zeros(sync, v.shape().dims(), v.dtype()));
    accumulators.push_back(acc);
    added.push_back(
      graph::assign_add(sync.sub(v.node_name() + "_add"), acc, *grads[i], true)
        .op());
  }
  ops.train
    = arrived
        .enqueue(
          s.sub("train").with_device(device).with_control_dependencies(added),
          {one})
        .name;
  // The chief, once every replica has arrived, applies their mean.
  auto all_in = arrived.dequeue_many(queues.sub("all_in"), replicas)[0];
  auto gated = sync.with_control_dependencies({all_in.op()});
  std::vector<std::optional<graph::output>> means;
  std::vector<graph::output> applied_to;
  auto scale = graph::constant(sync, 1.0 / static_cast<double>(replicas),
                               vars.front().dtype());
  for (size_t i = 0, a = 0; i < vars.size(); ++i)
    if (grads[i]) {
      means.emplace_back(graph::mul(gated, accumulators[a++], scale));
      applied_to.push_back(vars[i]);
    }
  auto apply
    = graph::apply_gradients(sync.sub("apply"), means, applied_to, opt);
  auto after = sync.with_control_dependencies({apply});
  std::vector<graph::operation> reset{
    graph::assign_add(after.sub("advance"), step,
                      graph::constant(after, 1.0, dtype::int64))
      .op()};
  for (const auto& acc : accumulators)
    reset.push_back(graph::assign(after.sub(acc.node_name() + "_reset"), acc,
                                  graph::zeros_like(after, acc))
                      .op());
  // ... and lets the others go on: a token for each.
  auto released = queues.with_control_dependencies(reset);
  std::vector<graph::operation> go_tokens;
  ops.wait.assign(static_cast<size_t>(replicas), {});
  for (int k = 1; k < replicas; ++k) {
    auto go = graph::queue::fifo(queues.sub("go_" + std::to_string(k)), token);
    go_tokens.push_back(go.enqueue(released.sub("release_" + std::to_string(k)),
                                   {graph::constant(released, int32_t{1})}));
    ops.wait[static_cast<size_t>(k)]
      = go.dequeue(queues.sub("wait_" + std::to_string(k)))[0].name();
  }
  ops.apply = graph::no_op(sync.sub("step").with_control_dependencies(
                             go_tokens.empty() ? reset : go_tokens))
                .name;
  return ops;
}

graph::operation all_reduce_update(
  const graph::scope& s, const std::vector<std::optional<graph::output>>& grads,
  const std::vector<graph::output>& vars,
  const std::vector<std::string>& members, const graph::optimizer& opt) {
  std::vector<graph::output> present;
  for (const auto& g : grads)
    if (g)
      present.push_back(*g);
  graph::all_reduce_options o;
  o.members = members;
  o.mean = true;
  auto mean = graph::all_reduce(s, present, o);
  std::vector<std::optional<graph::output>> averaged;
  size_t k = 0;
  for (const auto& g : grads)
    averaged.push_back(g ? std::optional<graph::output>{mean[k++]}
                         : std::nullopt);
  return graph::apply_gradients(s, averaged, vars, opt);
}

} // namespace actorflow::apps
