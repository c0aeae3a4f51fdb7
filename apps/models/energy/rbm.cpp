// `actorflow train rbm`: an RBM with binary units on Fashion-MNIST, trained
// by contrastive divergence, then its filters and reconstructions.

#include <cstdio>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"
#include "actorflow/graph/rbm.hpp"
#include "actorflow/graph/training_ops.hpp"
#include "models/energy/energy.hpp"
#include "models/energy/energy_job.hpp"
#include "training/train.hpp"

namespace actorflow::apps {

using core::dtype;
using core::tensor;
using graph::output;

int run_train_rbm(const energy_options& o) {
  energy_job job{o};
  auto st = job.load();
  if (!st.is_ok())
    return train_fail(st.to_string());
  auto& s = job.scope_;
  auto hidden = o.hidden.at(0);
  auto r
    = graph::rbm::make(s.sub("rbm"), 784, hidden, dtype::float32, {o.seed, 1});
  auto x = graph::placeholder(s.sub("x"), dtype::float32, {o.batch, 784});
  graph::rbm_options ro;
  ro.cd_k = o.cd_k;
  ro.persistent = o.persistent;
  ro.batch = o.batch;
  ro.learning_rate = o.learning_rate;
  ro.seed = {o.seed, 2};
  // Binary visible units: each batch sampled from its pixels.
  auto step = r.train_step(s, graph::rbm::sample(s, x, {o.seed, 3}), ro);
  auto tx = graph::placeholder(s.sub("test_x"), dtype::float32, {-1, 784});
  auto rebuilt = r.visible_probs(s, r.hidden_probs(s, tx));
  auto test_error = graph::reduce_mean(
    s, graph::square(s, graph::sub(s, tx, rebuilt)), {0, 1});
  st = job.start();
  double initial = 0, train_error = 0, test = 0;
  if (st.is_ok())
    st = job.on_test(tx, test_error, &initial);
  if (st.is_ok() && !o.quiet)
    std::fprintf(stderr, "test reconstruction error before training: %.5f\n",
                 initial);
  for (int e = 1; st.is_ok() && e <= o.epochs; ++e) {
    st = job.epoch("rbm", e, o.epochs, x, step.update.name,
                   step.reconstruction_error, &train_error);
    if (st.is_ok())
      st = job.on_test(tx, test_error, &test);
    if (st.is_ok() && !o.quiet)
      std::fprintf(stderr,
                   "  reconstruction error: training batches %.5f, test set "
                   "%.5f\n",
                   train_error, test);
  }
  std::vector<tensor> out;
  if (st.is_ok())
    st = job.run({{tx.name(), pixels(job.data_.test_images, 0, 10)}},
                 {r.w().name(), rebuilt.name()}, {}, &out);
  if (st.is_ok())
    st = job.save("filters", out[0]);
  if (st.is_ok())
    st = job.save_reconstructions(out[1]);
  if (!st.is_ok())
    return train_fail(st.to_string());
  if (!o.quiet)
    std::fprintf(stderr,
                 "filters.npy and reconstructions.npy in %s; "
                 "scripts/energy_to_png.py %s draws them\n",
                 o.out.c_str(), o.out.c_str());
  job.print_line({{"model", "rbm"},
                  {"hidden", hidden},
                  {"cd_k", o.cd_k},
                  {"persistent", o.persistent},
                  {"epochs", o.epochs},
                  {"initial_test_error", rounded(initial)},
                  {"train_error", rounded(train_error)},
                  {"test_error", rounded(test)}});
  return 0;
}

} // namespace actorflow::apps
