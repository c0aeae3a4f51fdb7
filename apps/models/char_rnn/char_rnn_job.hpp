#pragma once

// The char-RNN (`actorflow train char-rnn`) as a training job.

#include <cstdint>
#include <memory>
#include <string>

#include "models/char_rnn/char_rnn_model.hpp"
#include "training/training_job.hpp"

namespace actorflow::apps {

/// The model and text of `actorflow train char-rnn`.
struct char_rnn_options {
  /// A text file or folder; empty: Debian's fortunes.
  std::string data;
  /// The cell, layers, units and embedding (the vocabulary comes from the
  /// text, the seed from `--seed`).
  char_rnn_config model;
  /// Sequences longer than this are cut into windows of it.
  int64_t max_len = 100;
  /// Every n-th sequence is held out for the perplexity.
  int held_out_every = 20;
  /// The gradients' global norm is clipped to this (0: not clipped).
  double clip_norm = 5;
};

/// The language model `o` and `c` ask for, as a job; an error message, or
/// empty.
std::string make_char_rnn_job(const train_options& o, const char_rnn_options& c,
                              std::unique_ptr<training_job>* job);

} // namespace actorflow::apps
