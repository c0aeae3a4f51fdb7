// What `actorflow train` trains: the job of the model the options name.

#include "training/training_job.hpp"

namespace actorflow::apps {

std::string make_training_job(const train_options& o,
                              std::unique_ptr<training_job>* job) {
  if (!o.make_job)
    return "no model named (dataset '" + o.dataset + "')";
  return o.make_job(o, job);
}

} // namespace actorflow::apps
