// The char-RNN's training graph: loss over padded batches, clipped
// gradients, the optimizer, the saver.

#include "models/char_rnn/char_rnn_training.hpp"

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/gradients.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "training/sync_replicas.hpp"

namespace actorflow::apps {

using core::dtype;

namespace {

/// TensorFlow's clip_by_global_norm: every gradient times
/// clip / max(global norm, clip).
void clip_by_global_norm(const graph::scope& s,
                         std::vector<std::optional<graph::output>>& grads,
                         double clip) {
  std::vector<graph::output> squares;
  for (const auto& g : grads)
    if (g)
      squares.push_back(graph::reduce_sum(
        s, graph::reshape(s, graph::square(s, *g), std::vector<int64_t>{-1}),
        {0}));
  auto norm = graph::sqrt(s, graph::add_n(s, squares));
  auto c = graph::constant(s, clip);
  auto scale = graph::div(s, c, graph::maximum(s, norm, c));
  for (auto& g : grads)
    if (g)
      g = graph::mul(s, *g, scale);
}

} // namespace

char_rnn_training::char_rnn_training(const graph::scope& s,
                                     const char_rnn_config& config,
                                     const char_rnn_training_options& options)
  : scope(s), model(s.sub("model"), config) {
  auto in = s.sub("input");
  auto x = graph::placeholder(in.sub("inputs"), dtype::int32, {-1, -1});
  auto y = graph::placeholder(in.sub("targets"), dtype::int32, {-1, -1});
  auto lens = graph::placeholder(in.sub("lengths"), dtype::int32, {-1});
  inputs = x.name();
  targets = y.name();
  lengths = lens.name();
  auto m = s.sub("model");
  auto logits = model.forward(m, x, lens).logits;
  // The loss over the real characters: position t of sequence i counts
  // while t < lengths[i].
  auto l = s.sub("loss");
  auto labels = graph::cast(l, graph::reshape(l, y, std::vector<int64_t>{-1}),
                            dtype::int64);
  auto xent
    = graph::sparse_softmax_cross_entropy_with_logits(l, logits, labels).first;
  auto steps
    = graph::reshape(l, graph::slice(l, graph::shape_of(l, x), {1}, {1}),
                     std::vector<int64_t>{});
  auto positions = graph::range(l, graph::constant(l, int32_t{0}), steps,
                                graph::constant(l, int32_t{1}));
  auto mask = graph::reshape(
    l,
    graph::cast(
      l,
      graph::less(l, graph::reshape(l, positions, std::vector<int64_t>{1, -1}),
                  graph::reshape(l, lens, std::vector<int64_t>{-1, 1})),
      dtype::float32),
    std::vector<int64_t>{-1});
  auto sum = graph::reduce_sum(l, graph::mul(l, xent, mask), {0});
  auto mean = graph::div(l, sum, graph::reduce_sum(l, mask, {0}));
  loss = mean.name();
  loss_sum = sum.name();
  // One step of the optimizer on clipped gradients.
  auto vars = model.variables();
  auto t = s.sub("train");
  auto grads = graph::gradients(t, {mean}, vars);
  if (options.clip_norm > 0)
    clip_by_global_norm(t.sub("clip"), grads, options.clip_norm);
  auto step = graph::variable(s.sub("global_step"),
                              graph::constant(s, 0.0, dtype::int64));
  if (options.sync_replicas > 0) {
    auto ops = sync_replicas(s, grads, vars, step, options.sync_replicas,
                             options.sync_device, options.optimizer);
    train = ops.train;
    sync_apply = ops.apply;
    sync_wait = ops.wait;
  } else {
    auto update = options.all_reduce.empty()
                    ? graph::apply_gradients(t, grads, vars, options.optimizer)
                    : all_reduce_update(t, grads, vars, options.all_reduce,
                                        options.optimizer);
    train
      = graph::assign_add(s.with_control_dependencies({update}).sub("advance"),
                          step, graph::constant(s, 1.0, dtype::int64))
          .node_name();
  }
  global_step = graph::identity(s.sub("read_step"), step).name();
  std::vector<std::pair<std::string, graph::output>> saved;
  for (const auto& node : s.graph_def().nodes())
    if (node.op == "VariableV2" && node.name.rfind("sync_replicas/", 0) != 0)
      saved.emplace_back(node.name, s.output_of(node.name));
  saver = graph::make_saver(s.sub("saver"), saved);
  init = s.initializer().name;
}

} // namespace actorflow::apps
