// A training task's progress as Prometheus gauges.

#include "training/training_gauges.hpp"

#include <cstdio>

namespace actorflow::apps {

void training_gauges::update(int epoch, int64_t step, double loss, double rate,
                             const std::string& unit) {
  std::lock_guard<std::mutex> guard{mtx_};
  set_ = true;
  epoch_ = epoch;
  step_ = step;
  loss_ = loss;
  rate_ = rate;
  unit_ = unit;
}

std::string training_gauges::render() const {
  std::lock_guard<std::mutex> guard{mtx_};
  if (!set_)
    return {};
  // "samples/s" -> actorflow_training_samples_per_second
  auto what = unit_.substr(0, unit_.find('/'));
  std::string out;
  auto gauge
    = [&](const std::string& name, const std::string& help, double value) {
        char number[64];
        std::snprintf(number, sizeof number, "%.17g", value);
        out += "# HELP actorflow_training_" + name + " " + help + "\n";
        out += "# TYPE actorflow_training_" + name + " gauge\n";
        out += "actorflow_training_" + name + " " + number + "\n";
      };
  gauge("epoch", "The epoch being trained, from 1.", epoch_);
  gauge("step", "Training steps done, over the whole run.",
        static_cast<double>(step_));
  gauge("loss", "The loss of the last training step.", loss_);
  gauge(what + "_per_second",
        "Training throughput in the current epoch, " + unit_ + ".", rate_);
  return out;
}

} // namespace actorflow::apps
