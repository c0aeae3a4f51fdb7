#pragma once

// The char-RNN (`actorflow train char-rnn`) as a training job.

#include <memory>
#include <string>

#include "training/training_job.hpp"

namespace actorflow::apps {

/// The language model `o` asks for, as a job; an error message, or empty.
std::string make_char_rnn_job(const train_options& o,
                              std::unique_ptr<training_job>* job);

} // namespace actorflow::apps
