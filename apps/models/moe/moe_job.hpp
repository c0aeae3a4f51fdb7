#pragma once

// The mixture of experts (`actorflow train moe`) as a training job: a
// Fashion-MNIST classifier whose hidden layers are experts, `k` per image.

#include <cstdint>
#include <memory>
#include <string>

#include "training/training_job.hpp"

namespace actorflow::apps {

/// What only the mixture takes.
struct moe_options {
  /// Experts in all.
  int64_t experts = 8;
  /// Experts per image.
  int64_t k = 2;
};

/// The mixture `o` and `m` ask for (`o.hidden`: each expert's two
/// layers), as a job whose experts spread over a cluster's expert tasks;
/// an error message, or empty.
std::string make_moe_job(const train_options& o, const moe_options& m,
                         std::unique_ptr<training_job>* job);

} // namespace actorflow::apps
