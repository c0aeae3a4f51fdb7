// The char-RNN of `actorflow train char-rnn` as a training job (run in
// one process or as a cluster's replica): its text -- Debian's fortunes
// unless --data says otherwise, one sequence per fortune or paragraph --
// cut into batches of similar lengths, the model's shape checked against
// the checkpoints it resumes from, and the training loop: after each
// epoch the perplexity of the held-out text beside the character-frequency
// model's and a checkpoint.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/interop/summary_writer.hpp"
#include "models/char_rnn/char_rnn_job.hpp"
#include "models/char_rnn/char_rnn_training.hpp"
#include "models/char_rnn/text_data.hpp"
#include "training/progress_line.hpp"
#include "training/step_tracer.hpp"

namespace actorflow::apps {

namespace {

/// The text of `actorflow train char-rnn`, cut into batches, and what a
/// model that ignores context gets on the held-out part.
struct char_rnn_data {
  text_corpus corpus;
  char_vocabulary vocab;
  std::vector<text_batch> train, held_out;
  int64_t train_characters = 0;
  double unigram_perplexity = 0;
};

/// Reads `c.data` (Debian's fortunes by default) into batches of
/// `o.batch`; prints a line about it unless `o.quiet`.
core::status load_char_rnn_data(const train_options& o,
                                const char_rnn_options& c, char_rnn_data* d) {
  auto path = c.data.empty() ? std::string{fortunes_dir} : c.data;
  auto st = load_text_corpus(path, c.held_out_every, &d->corpus);
  if (st.code() == core::errc::not_found && c.data.empty())
    return core::status{st.code(),
                        st.message()
                          + "\n  the fortunes come with Debian's fortunes "
                            "package (scripts/setup.sh installs it); --data "
                            "takes any text file or folder"};
  ACTORFLOW_RETURN_IF_ERROR(st);
  auto all = d->corpus.train;
  all.insert(all.end(), d->corpus.held_out.begin(), d->corpus.held_out.end());
  d->vocab = char_vocabulary::of(all);
  ACTORFLOW_RETURN_IF_ERROR(make_text_batches(d->corpus.train, d->vocab,
                                              c.max_len, o.batch, &d->train));
  ACTORFLOW_RETURN_IF_ERROR(make_text_batches(
    d->corpus.held_out, d->vocab, c.max_len, o.batch, &d->held_out));
  for (const auto& b : d->train)
    d->train_characters += b.characters;
  d->unigram_perplexity
    = unigram_perplexity(d->corpus.train, d->corpus.held_out, d->vocab);
  if (!o.quiet)
    std::fprintf(
      stderr,
      "%zu sequences (%lld characters to predict) for training, "
      "%zu held out; %lld characters in the vocabulary; the "
      "character-frequency model's held-out perplexity is %.2f\n",
      d->corpus.train.size(), static_cast<long long>(d->train_characters),
      d->corpus.held_out.size(), static_cast<long long>(d->vocab.size()),
      d->unigram_perplexity);
  return core::status::ok();
}

/// Keeps the training batches `index`, `index + count`, ... (worker
/// `index`'s shard of `count`), as many for every worker.
void keep_shard(char_rnn_data* d, int index, int count) {
  // As many batches on every worker (replicas in step take as many steps).
  auto per_worker = d->train.size() / static_cast<size_t>(count);
  std::vector<text_batch> shard;
  d->train_characters = 0;
  for (size_t k = 0; k < per_worker; ++k) {
    auto& b
      = d->train[static_cast<size_t>(index) + k * static_cast<size_t>(count)];
    d->train_characters += b.characters;
    shard.push_back(std::move(b));
  }
  d->train = std::move(shard);
}

/// The optimizer and clipping `o` asks for; an error message, or empty.
std::string char_rnn_training_options_from(const train_options& o,
                                           const char_rnn_options& c,
                                           char_rnn_training_options* t) {
  if (!graph::optimizer::parse(o.optimizer, &t->optimizer))
    return "unknown optimizer '" + o.optimizer + "'";
  t->optimizer.learning_rate = o.learning_rate;
  t->clip_norm = c.clip_norm;
  return {};
}

/// Where the checkpoints of `o` go.
std::string char_rnn_checkpoint_dir(const train_options& o) {
  return o.checkpoint_dir + "/char-rnn";
}

/// The model the flags ask for over `vocab`; when resuming, checked
/// against char-rnn.json in `dir`.
core::status char_rnn_config_from(const train_options& o,
                                  const char_rnn_options& c,
                                  const char_vocabulary& vocab,
                                  const std::string& dir,
                                  char_rnn_config* config) {
  *config = c.model;
  config->vocab = vocab.size();
  config->seed = o.seed;
  if (!o.resume)
    return core::status::ok();
  char_rnn_config saved;
  char_vocabulary saved_vocab;
  auto st = load_char_rnn_config(dir, &saved, &saved_vocab);
  if (st.code() == core::errc::not_found)
    return core::status::ok(); // nothing to resume from
  ACTORFLOW_RETURN_IF_ERROR(st);
  if (saved_vocab.bytes() != vocab.bytes())
    return core::status{core::errc::failed_precondition,
                        "the checkpoints in " + dir
                          + " were trained on text with other characters: "
                            "resume with the same --data, or give another "
                            "--checkpoint-dir"};
  if (saved.cell != config->cell || saved.layers != config->layers
      || saved.units != config->units || saved.embed != config->embed)
    return core::status{core::errc::failed_precondition,
                        "the checkpoints in " + dir + " are of a "
                          + std::to_string(saved.layers) + "-layer "
                          + saved.cell + " of " + std::to_string(saved.units)
                          + " units (embedding " + std::to_string(saved.embed)
                          + "): resume with those flags, or give another "
                            "--checkpoint-dir"};
  return core::status::ok();
}

/// The perplexity of the held-out batches.
core::status held_out_perplexity(actors::session& sess,
                                 const char_rnn_training& g,
                                 const std::vector<text_batch>& batches,
                                 double* perplexity) {
  double nll = 0;
  int64_t characters = 0;
  std::vector<core::tensor> out;
  for (const auto& b : batches) {
    ACTORFLOW_RETURN_IF_ERROR(sess.run(
      {{g.inputs, b.inputs}, {g.targets, b.targets}, {g.lengths, b.lengths}},
      {g.loss_sum}, {}, &out));
    nll += out[0].scalar_value<float>();
    characters += b.characters;
  }
  *perplexity
    = std::exp(nll / static_cast<double>(std::max<int64_t>(characters, 1)));
  return core::status::ok();
}

/// Epoch `epoch`'s order of the batches: the same on every run with the
/// same seed, so a run resumed within an epoch goes on with its order.
std::vector<size_t> epoch_order(size_t batches, int64_t seed, int epoch) {
  std::vector<size_t> order(batches);
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng{static_cast<uint64_t>(seed) * 1000003u
                      + static_cast<uint64_t>(epoch)};
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[rng() % i]);
  return order;
}

/// Trains from `step` to `o.epochs` epochs over `d.train` (one step per
/// batch, in an order that depends on the seed and the epoch), with a
/// progress line; after each epoch the held-out perplexity and, given
/// `checkpoints`, a checkpoint; prints the JSON line. `after_step`, if
/// not empty, is run after each training step; `gauges`, if not null, are
/// set after each. Returns the exit code.
int train_char_rnn_epochs(actors::session& sess, const char_rnn_training& g,
                          const char_rnn_data& d, const train_options& o,
                          int64_t step, actors::checkpoint_manager* checkpoints,
                          const std::string& after_step,
                          training_gauges* gauges) {
  std::unique_ptr<interop::summary_writer> summaries;
  if (!o.logdir.empty()) {
    auto st = interop::summary_writer::open(o.logdir, &summaries);
    if (st.is_ok())
      st = summaries->add_graph(g.scope.graph_def());
    if (!st.is_ok())
      return train_fail(st.to_string());
    if (!o.quiet)
      std::fprintf(stderr, "TensorBoard events go to %s\n",
                   summaries->path().c_str());
  }
  auto steps_per_epoch = static_cast<int64_t>(d.train.size());
  progress_line progress{!o.quiet, isatty(STDERR_FILENO) != 0, "chars/s"};
  progress.report_to(gauges);
  step_tracer tracer{o.trace, o.trace_steps};
  std::vector<core::tensor> out;
  double perplexity = 0, train_seconds = 0;
  int64_t trained = 0, characters = 0;
  for (auto epoch = static_cast<int>(step / steps_per_epoch); epoch < o.epochs;
       ++epoch) {
    auto order = epoch_order(d.train.size(), o.seed, epoch);
    auto start = std::chrono::steady_clock::now();
    double loss = 0;
    int64_t epoch_characters = 0;
    for (auto k = step - epoch * steps_per_epoch; k < steps_per_epoch; ++k) {
      const auto& b = d.train[order[static_cast<size_t>(k)]];
      actors::run_metadata md;
      auto st = sess.run(
        tracer.options(step),
        {{g.inputs, b.inputs}, {g.targets, b.targets}, {g.lengths, b.lengths}},
        {g.loss}, {g.train}, &out, &md);
      tracer.add(step, md);
      if (st.is_ok())
        loss = out[0].scalar_value<float>();
      if (st.is_ok())
        st = finish_step(sess, tracer, step, after_step);
      if (st.is_ok() && summaries != nullptr && step % o.summary_every == 0)
        st = summaries->add_scalar("loss", loss, step);
      if (!st.is_ok())
        return train_fail(st.to_string());
      ++step;
      ++trained;
      epoch_characters += b.characters;
      auto elapsed = seconds_since(start);
      progress.show(
        epoch + 1, o.epochs, k + 1, steps_per_epoch, loss,
        static_cast<double>(epoch_characters) / elapsed,
        elapsed / static_cast<double>(epoch_characters)
          * static_cast<double>(d.train_characters - epoch_characters));
    }
    progress.end_line();
    auto epoch_seconds = seconds_since(start);
    train_seconds += epoch_seconds;
    characters += epoch_characters;
    auto st = held_out_perplexity(sess, g, d.held_out, &perplexity);
    if (st.is_ok() && checkpoints != nullptr)
      st = checkpoints->save(step);
    if (st.is_ok() && summaries != nullptr)
      st = summaries->add_scalar("held_out_perplexity", perplexity, step);
    if (st.is_ok() && summaries != nullptr)
      st = summaries->add_scalar(
        "chars_per_s", static_cast<double>(epoch_characters) / epoch_seconds,
        step);
    if (st.is_ok() && summaries != nullptr)
      st = summaries->flush();
    if (!st.is_ok())
      return train_fail(st.to_string());
    if (!o.quiet)
      std::fprintf(stderr,
                   "epoch %d/%d: loss %.4f, held-out perplexity %.3f "
                   "(character frequencies: %.3f), %.1f s%s\n",
                   epoch + 1, o.epochs, loss, perplexity, d.unigram_perplexity,
                   epoch_seconds,
                   checkpoints != nullptr
                     ? (", checkpoint " + checkpoints->path(step)).c_str()
                     : "");
  }
  tracer.warn_if_untraced(step);
  if (trained == 0) {
    // Resumed after the last epoch: report the restored model.
    auto st = held_out_perplexity(sess, g, d.held_out, &perplexity);
    if (!st.is_ok())
      return train_fail(st.to_string());
    say_nothing_to_train(o, step, steps_per_epoch);
  }
  auto round_to
    = [](double x, double scale) { return std::round(x * scale) / scale; };
  nlohmann::ordered_json line{
    {"epochs", o.epochs},
    {"steps", step},
    {"held_out_perplexity", round_to(perplexity, 1e3)},
    {"unigram_perplexity", round_to(d.unigram_perplexity, 1e3)},
    {"chars_per_s", round_to(train_seconds > 0
                               ? static_cast<double>(characters) / train_seconds
                               : 0.0,
                             1e1)},
    {"ms_per_step",
     round_to(trained > 0 ? 1e3 * train_seconds / static_cast<double>(trained)
                          : 0.0,
              1e3)}};
  if (trained == 0) // no step, no speed
    line["chars_per_s"] = line["ms_per_step"] = nullptr;
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

/// The char-RNN: each replica takes every n-th batch of the text, whole.
class char_rnn_job : public training_job {
public:
  char_rnn_job(const train_options& o, char_rnn_options c,
               char_rnn_training_options t)
    : o_(o), c_(std::move(c)), t_(std::move(t)) {
  }

  core::status load(actors::engine&, int index, int replicas) override {
    ACTORFLOW_RETURN_IF_ERROR(load_char_rnn_data(o_, c_, &data_));
    if (data_.train.size() < static_cast<size_t>(replicas))
      return core::status{core::errc::invalid_argument,
                          "the text has fewer batches than there are "
                          "workers: a smaller --batch"};
    if (replicas > 1)
      keep_shard(&data_, index, replicas);
    return char_rnn_config_from(o_, c_, data_.vocab,
                                char_rnn_checkpoint_dir(o_), &config_);
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
            const std::string& after_step, training_gauges* gauges) override {
    if (checkpoints != nullptr) {
      // Beside the checkpoints: what `actorflow sample` rebuilds from.
      auto st
        = save_char_rnn_config(checkpoints->directory(), config_, data_.vocab);
      if (!st.is_ok())
        return train_fail(st.to_string());
    }
    return train_char_rnn_epochs(sess, *g_, data_, o, step, checkpoints,
                                 after_step, gauges);
  }

private:
  const train_options& o_;
  char_rnn_options c_;
  char_rnn_training_options t_;
  char_rnn_data data_;
  char_rnn_config config_;
  std::unique_ptr<char_rnn_training> g_;
};

} // namespace

std::string make_char_rnn_job(const train_options& o, const char_rnn_options& c,
                              std::unique_ptr<training_job>* job) {
  char_rnn_training_options t;
  if (auto err = char_rnn_training_options_from(o, c, &t); !err.empty())
    return err;
  *job = std::make_unique<char_rnn_job>(o, c, std::move(t));
  return {};
}

} // namespace actorflow::apps
