#pragma once

// Fashion-MNIST's classifiers (`actorflow train fashion-mnist` and `train
// moe`) as a training job.

#include <memory>
#include <string>

#include "models/fashion/fashion_training.hpp"
#include "training/training_job.hpp"

namespace actorflow::apps {

/// The classifier `o` asks for (`--model` mlp or cnn), as a job; an error
/// message, or empty.
std::string make_fashion_job(const train_options& o,
                             std::unique_ptr<training_job>* job);

/// The data, batch, model kind and optimizer `o` asks for, for a
/// classifier of Fashion-MNIST; an error message, or empty.
std::string classifier_options_from(const train_options& o,
                                    training_options* t);

/// A job that trains the classifier `t` describes on Fashion-MNIST, the
/// images sharded over replicas; a model of kind "moe" takes the
/// cluster's expert devices (`place_experts`).
std::unique_ptr<training_job> make_classifier_job(const train_options& o,
                                                  training_options t);

} // namespace actorflow::apps
