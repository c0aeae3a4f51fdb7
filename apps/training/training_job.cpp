// What `actorflow train` trains: the job of the model the options name.

#include "training/training_job.hpp"

#include "models/char_rnn/char_rnn_job.hpp"
#include "models/fashion/fashion_job.hpp"

namespace actorflow::apps {

std::string make_training_job(const train_options& o,
                              std::unique_ptr<training_job>* job) {
  if (o.dataset == "char-rnn")
    return make_char_rnn_job(o, job);
  return make_fashion_job(o, job);
}

} // namespace actorflow::apps
