// The mixture of experts as a training job: the classifier job with a
// mixture for its hidden layers.

#include "models/moe/moe_job.hpp"

#include "models/fashion/fashion_job.hpp"

namespace actorflow::apps {

std::string make_moe_job(const train_options& o, const moe_options& m,
                         std::unique_ptr<training_job>* job) {
  training_options t;
  if (auto err = classifier_options_from(o, &t); !err.empty())
    return err;
  if (o.hidden.size() != 2)
    return "a mixture of experts takes --hidden H1,H2 (each expert's two "
           "layers)";
  if (m.k > m.experts)
    return "--k " + std::to_string(m.k) + " is more than --experts "
           + std::to_string(m.experts);
  t.model.kind = "moe";
  t.model.experts = m.experts;
  t.model.k = m.k;
  *job = make_classifier_job(o, std::move(t));
  return {};
}

} // namespace actorflow::apps
