#pragma once

// A training task's progress as Prometheus gauges, served beside the
// engine's metrics.

#include <cstdint>
#include <mutex>
#include <string>

namespace actorflow::apps {

/// The epoch, global step, last loss and throughput of a training loop,
/// set after each step and rendered in Prometheus' text format
/// (`actorflow_training_*`; docs/observability.md). Safe to set from the
/// loop while the metrics endpoint renders.
class training_gauges {
public:
  /// Step `step` (counted over the whole run) of epoch `epoch` is done,
  /// with loss `loss`, at `rate` of `unit` ("samples/s", "chars/s").
  void update(int epoch, int64_t step, double loss, double rate,
              const std::string& unit);

  /// The gauges in Prometheus' text format; empty before the first step.
  std::string render() const;

private:
  mutable std::mutex mtx_;
  bool set_ = false;
  int epoch_ = 0;
  int64_t step_ = 0;
  double loss_ = 0;
  double rate_ = 0;
  std::string unit_;
};

} // namespace actorflow::apps
