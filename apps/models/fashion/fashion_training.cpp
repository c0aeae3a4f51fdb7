// Fashion-MNIST's training graph: the input queue, the loss, the
// optimizer, evaluation, summaries and the saver.

#include "models/fashion/fashion_training.hpp"

#include "actorflow/graph/summary_ops.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/queue.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "training/sync_replicas.hpp"

namespace actorflow::apps {

using core::dtype;

fashion_training::fashion_training(const graph::scope& s,
                                   int64_t train_examples,
                                   const training_options& options)
  : scope(s) {
  auto n = train_examples;
  // The data: variables set from feeds, then read by every epoch.
  auto data = s.sub("data");
  auto images = graph::variable(data.sub("images"), {n, 784}, dtype::uint8);
  auto labels = graph::variable(data.sub("labels"), {n}, dtype::uint8);
  auto images_in
    = graph::placeholder(data.sub("images_in"), dtype::uint8, {n, 784});
  auto labels_in = graph::placeholder(data.sub("labels_in"), dtype::uint8, {n});
  auto set_images = graph::assign(data.sub("set_images"), images, images_in);
  auto set_labels = graph::assign(data.sub("set_labels"), labels, labels_in);
  s.add_initializer(set_images.op());
  s.add_initializer(set_labels.op());
  data_init = graph::no_op(data.sub("init").with_control_dependencies(
                             {set_images.op(), set_labels.op()}))
                .name;
  images_in_ = images_in.name();
  labels_in_ = labels_in.name();
  // The input queue: an epoch in a new order per run of `fill`.
  auto in = s.sub("input");
  graph::queue::options qo{{dtype::uint8, dtype::uint8},
                           {core::shape{784}, core::shape{}},
                           16 * options.batch};
  auto q = graph::queue::fifo(in.sub("queue"), qo);
  auto order = graph::random_shuffle(
    in,
    graph::range(in, graph::constant(in, 0.0, dtype::int32),
                 graph::constant(in, static_cast<double>(n), dtype::int32),
                 graph::constant(in, 1.0, dtype::int32)),
    {options.model.seed, 1000});
  fill = q.enqueue_many(in.sub("fill"), {graph::gather(in, images, order),
                                         graph::gather(in, labels, order)})
           .name;
  close = q.close(in.sub("close")).name;
  cancel = q.close(in.sub("cancel"), true).name;
  auto batch = q.dequeue_many(in.sub("batch"), options.batch);
  // The model, its loss and one step of the optimizer.
  fashion_model model{s.sub("model"), options.model};
  auto m = s.sub("model");
  graph::moe_outputs moe;
  auto logits = model.logits(m, fashion_model::pixels(m, batch[0]), true, &moe);
  auto xent = graph::sparse_softmax_cross_entropy_with_logits(
    m, logits, graph::cast(m, batch[1], dtype::int64));
  auto mean_loss = graph::reduce_mean(s.sub("loss"), xent.first, {0});
  loss = mean_loss.name();
  // A mixture of experts adds its balancing loss and counts the images
  // each expert got (expert_load, reset by reset_load).
  std::vector<graph::operation> counted;
  if (moe.loss.valid()) {
    mean_loss = graph::add(s.sub("loss"), mean_loss, moe.loss);
    auto l = s.sub("expert_load");
    auto rows = graph::variable(
      l.sub("rows"),
      graph::zeros(l.sub("init"), {options.model.experts}, dtype::int32));
    counted.push_back(graph::assign_add(l.sub("count"), rows, moe.rows).op());
    expert_load = graph::identity(l.sub("read"), rows).name();
    reset_load = graph::assign(l.sub("reset"), rows, graph::zeros_like(l, rows))
                   .node_name();
  }
  auto step = graph::variable(s.sub("global_step"),
                              graph::constant(s, 0.0, dtype::int64));
  if (options.sync_replicas > 0) {
    auto vars = model.variables();
    auto ops = apps::sync_replicas(
      s, graph::gradients(s.sub("train"), {mean_loss}, vars), vars, step,
      options.sync_replicas, options.sync_device, options.optimizer);
    train = counted.empty()
              ? ops.train
              : graph::no_op(s.sub("step").with_control_dependencies(
                               {graph::operation{ops.train}, counted[0]}))
                  .name;
    sync_apply = ops.apply;
    sync_wait = ops.wait;
  } else {
    auto vars = model.variables();
    auto update
      = options.all_reduce.empty()
          ? graph::minimize(s.sub("train"), mean_loss, vars, options.optimizer)
          : all_reduce_update(
            s.sub("train"), graph::gradients(s.sub("train"), {mean_loss}, vars),
            vars, options.all_reduce, options.optimizer);
    counted.push_back(update);
    auto advance
      = graph::assign_add(s.with_control_dependencies(counted).sub("advance"),
                          step, graph::constant(s, 1.0, dtype::int64));
    train = advance.node_name();
  }
  global_step = graph::identity(s.sub("read_step"), step).name();
  // TensorBoard: the batch's loss and a histogram of every weight.
  auto sums = s.sub("summaries");
  std::vector<graph::output> parts{
    graph::scalar_summary(sums, "loss", mean_loss)};
  for (const auto& v : model.variables())
    parts.push_back(graph::histogram_summary(sums, v.node_name(), v));
  summaries = graph::merge_summary(sums, parts).name();
  // Evaluation on fed images.
  auto ev = s.sub("eval");
  auto eval_in = graph::placeholder(ev.sub("images"), dtype::uint8, {-1, 784});
  auto eval_y = graph::placeholder(ev.sub("labels"), dtype::uint8, {-1});
  auto predicted = graph::arg_max(
    ev, model.logits(ev, fashion_model::pixels(ev, eval_in), false), 1);
  auto hits
    = graph::equal(ev, predicted, graph::cast(ev, eval_y, dtype::int64));
  correct
    = graph::reduce_sum(ev, graph::cast(ev, hits, dtype::int32), {0}).name();
  eval_images = eval_in.name();
  eval_labels = eval_y.name();
  // Every variable but the data and the synchronous replicas'
  // accumulators goes into checkpoints (the optimizer's slots too, so a
  // resumed run continues where it was).
  std::vector<std::pair<std::string, graph::output>> saved;
  for (const auto& node : s.graph_def().nodes())
    if (node.op == "VariableV2" && node.name.rfind("data/", 0) != 0
        && node.name.rfind("sync_replicas/", 0) != 0
        && node.name.rfind("expert_load/", 0) != 0)
      saved.emplace_back(node.name, s.output_of(node.name));
  saver = graph::make_saver(s.sub("saver"), saved);
  init = s.initializer().name;
}

actors::feed_list fashion_training::data_feeds(const fashion_data& data) const {
  return {{images_in_, data.train_images}, {labels_in_, data.train_labels}};
}

} // namespace actorflow::apps
