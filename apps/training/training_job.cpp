#include "training/training_job.hpp"

#include <cstring>

#include "models/char_rnn/char_rnn_job.hpp"
#include "models/fashion/fashion_training.hpp"

namespace actorflow::apps {

namespace {

/// Rows `index`, `index + count`, ... of `x` (the first dimension).
core::tensor every_nth(const core::tensor& x, int64_t index, int64_t count) {
  auto rows = x.shape().dim(0);
  auto row_bytes = rows > 0 ? x.bytes() / static_cast<size_t>(rows) : 0;
  auto n = (rows - index + count - 1) / count;
  auto dims = x.shape().dims();
  dims[0] = n;
  core::tensor out{x.dtype(), core::shape{dims}};
  auto* dst = static_cast<char*>(out.raw_mutable_data());
  const auto* src = static_cast<const char*>(x.raw_data());
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + static_cast<size_t>(i) * row_bytes,
                src + static_cast<size_t>(index + i * count) * row_bytes,
                row_bytes);
  return out;
}

/// Fashion-MNIST's MLP or CNN: each replica reads every n-th image and
/// takes its share of each batch.
class fashion_job : public training_job {
public:
  fashion_job(const train_options& o, training_options t) : o_(o), t_(t) {
  }

  core::status load(actors::engine& e, int index, int replicas) override {
    if (o_.batch % replicas != 0)
      return core::status{core::errc::invalid_argument,
                          "--batch " + std::to_string(o_.batch)
                            + " does not split evenly over "
                            + std::to_string(replicas) + " workers"};
    ACTORFLOW_RETURN_IF_ERROR(load_data(e, o_, &data_));
    auto total = data_.train_images.shape().dim(0);
    if (replicas > 1) {
      data_.train_images = every_nth(data_.train_images, index, replicas);
      data_.train_labels = every_nth(data_.train_labels, index, replicas);
    }
    t_.batch = o_.batch / replicas;
    // Shards differ by a row at most.
    steps_per_epoch_ = total / replicas / t_.batch;
    if (steps_per_epoch_ < 1)
      return core::status{core::errc::invalid_argument,
                          replicas > 1 ? "--batch is larger than a worker's "
                                         "shard of the data"
                                       : "--batch is larger than the "
                                         "training set"};
    return core::status::ok();
  }

  training_graph build(const graph::scope& s, int sync_replicas,
                       const std::string& sync_device,
                       const std::vector<std::string>& all_reduce) override {
    t_.sync_replicas = sync_replicas;
    t_.sync_device = sync_device;
    t_.all_reduce = all_reduce;
    g_ = std::make_unique<fashion_training>(
      s, data_.train_images.shape().dim(0), t_);
    training_graph out;
    out.init = g_->init;
    out.local_init = g_->data_init;
    out.local_prefix = "data/";
    out.feeds = g_->data_feeds(data_);
    out.global_step = g_->global_step;
    out.sync_apply = g_->sync_apply;
    out.sync_wait = g_->sync_wait;
    out.saver = g_->saver;
    out.checkpoint_dir
      = o_.checkpoint_dir + "/"
        + (o_.checkpoint_name.empty() ? "fashion-mnist-" + o_.model
                                      : o_.checkpoint_name);
    return out;
  }

  int train(actors::session& sess, const train_options& o, int64_t step,
            actors::checkpoint_manager* checkpoints,
            const std::string& after_step) override {
    auto per_replica = o;
    per_replica.batch = static_cast<int>(t_.batch);
    return train_epochs(sess, *g_, data_, per_replica, steps_per_epoch_, step,
                        checkpoints, after_step);
  }

private:
  const train_options& o_;
  training_options t_;
  fashion_data data_;
  int64_t steps_per_epoch_ = 0;
  std::unique_ptr<fashion_training> g_;
};

/// The char-RNN: each replica takes every n-th batch of the text, whole.
class char_rnn_job : public training_job {
public:
  char_rnn_job(const train_options& o, char_rnn_training_options t)
    : o_(o), t_(std::move(t)) {
  }

  core::status load(actors::engine&, int index, int replicas) override {
    ACTORFLOW_RETURN_IF_ERROR(load_char_rnn_data(o_, &data_));
    if (data_.train.size() < static_cast<size_t>(replicas))
      return core::status{core::errc::invalid_argument,
                          "the text has fewer batches than there are "
                          "workers: a smaller --batch"};
    if (replicas > 1)
      keep_shard(&data_, index, replicas);
    return char_rnn_config_from(o_, data_.vocab, char_rnn_checkpoint_dir(o_),
                                &config_);
  }

  training_graph build(const graph::scope& s, int sync_replicas,
                       const std::string& sync_device,
                       const std::vector<std::string>& all_reduce) override {
    t_.sync_replicas = sync_replicas;
    t_.sync_device = sync_device;
    t_.all_reduce = all_reduce;
    g_ = std::make_unique<char_rnn_training>(s, config_, t_);
    training_graph out;
    out.init = g_->init;
    out.global_step = g_->global_step;
    out.sync_apply = g_->sync_apply;
    out.sync_wait = g_->sync_wait;
    out.saver = g_->saver;
    out.checkpoint_dir = char_rnn_checkpoint_dir(o_);
    return out;
  }

  int train(actors::session& sess, const train_options& o, int64_t step,
            actors::checkpoint_manager* checkpoints,
            const std::string& after_step) override {
    if (checkpoints != nullptr) {
      // Beside the checkpoints: what `actorflow sample` rebuilds from.
      auto st
        = save_char_rnn_config(checkpoints->directory(), config_, data_.vocab);
      if (!st.is_ok())
        return train_fail(st.to_string());
    }
    return train_char_rnn_epochs(sess, *g_, data_, o, step, checkpoints,
                                 after_step);
  }

private:
  const train_options& o_;
  char_rnn_training_options t_;
  char_rnn_data data_;
  char_rnn_config config_;
  std::unique_ptr<char_rnn_training> g_;
};

} // namespace

std::string make_training_job(const train_options& o,
                              std::unique_ptr<training_job>* job) {
  if (o.dataset == "char-rnn") {
    char_rnn_training_options t;
    if (auto err = char_rnn_training_options_from(o, &t); !err.empty())
      return err;
    *job = std::make_unique<char_rnn_job>(o, std::move(t));
    return {};
  }
  training_options t;
  if (auto err = training_options_from(o, &t); !err.empty())
    return err;
  *job = std::make_unique<fashion_job>(o, std::move(t));
  return {};
}

} // namespace actorflow::apps
