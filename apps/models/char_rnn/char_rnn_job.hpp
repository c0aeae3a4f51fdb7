#pragma once

#include <string>
#include <vector>

#include "actorflow/actors/checkpoint_manager.hpp"
#include "actorflow/actors/session.hpp"
#include "models/char_rnn/char_rnn_training.hpp"
#include "models/char_rnn/text_data.hpp"
#include "training/train.hpp"

namespace actorflow::apps {

/// The text of `actorflow train char-rnn`, cut into batches, and what a
/// model that ignores context gets on the held-out part.
struct char_rnn_data {
  text_corpus corpus;
  char_vocabulary vocab;
  std::vector<text_batch> train, held_out;
  int64_t train_characters = 0;
  double unigram_perplexity = 0;
};

/// Reads `o.char_rnn.data` (Debian's fortunes by default) into batches of
/// `o.batch`; prints a line about it unless `o.quiet`.
core::status load_char_rnn_data(const train_options& o, char_rnn_data* d);

/// Keeps the training batches `index`, `index + count`, ... (worker
/// `index`'s shard of `count`), as many for every worker.
void keep_shard(char_rnn_data* d, int index, int count);

/// The model the flags ask for over `vocab`; when resuming, checked
/// against char-rnn.json in `dir`.
core::status char_rnn_config_from(const train_options& o,
                                  const char_vocabulary& vocab,
                                  const std::string& dir,
                                  char_rnn_config* config);

/// The optimizer and clipping `o` asks for; an error message, or empty.
std::string char_rnn_training_options_from(const train_options& o,
                                           char_rnn_training_options* t);

/// Where the checkpoints of `o` go.
std::string char_rnn_checkpoint_dir(const train_options& o);

/// Trains from `step` to `o.epochs` epochs over `d.train` (one step per
/// batch, in an order that depends on the seed and the epoch), with a
/// progress line; after each epoch the held-out perplexity and, given
/// `checkpoints`, a checkpoint; prints the JSON line. `after_step`, if
/// not empty, is run after each training step. Returns the exit code.
int train_char_rnn_epochs(actors::session& sess, const char_rnn_training& g,
                          const char_rnn_data& d, const train_options& o,
                          int64_t step, actors::checkpoint_manager* checkpoints,
                          const std::string& after_step = {});

} // namespace actorflow::apps
