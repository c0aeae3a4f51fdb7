#pragma once

// Fashion-MNIST's classifiers (`actorflow train fashion-mnist` and `train
// moe`) as a training job.

#include <memory>
#include <string>

#include "training/training_job.hpp"

namespace actorflow::apps {

/// The classifier `o` asks for, as a job; an error message, or empty.
std::string make_fashion_job(const train_options& o,
                             std::unique_ptr<training_job>* job);

} // namespace actorflow::apps
