#pragma once

// Fashion-MNIST's classifiers: MLP, CNN and mixture of experts.

#include <string>
#include <utility>
#include <vector>

#include "actorflow/graph/moe.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::apps {

/// Which classifier of 28x28 grey images into 10 classes to build.
struct model_options {
  /// "mlp": 784 - hidden... - 10 with ReLU; "cnn": conv 5x5 32 -> pool ->
  /// conv 5x5 64 -> pool -> fc 1024 -> 10; "moe": a mixture of `experts`
  /// experts 784 - hidden[0] - hidden[1] (ReLU between), `k` per image
  /// (graph::moe_layer), then ReLU and fc -> 10.
  std::string kind = "mlp";
  std::vector<int64_t> hidden{512, 256};
  int64_t seed = 1;
  int64_t experts = 8;
  int64_t k = 2;
  /// Expert i's variables and compute on expert_devices[i % size]; empty:
  /// the model's device.
  std::vector<std::string> expert_devices;
};

/// The variables of a Fashion-MNIST classifier (initialised as PyTorch's
/// nn.Linear/nn.Conv2d: uniform in +-1/sqrt(fan_in), by the graph's
/// initializer) and its forward pass, which can be built several times
/// over the same variables (training batches, evaluation).
class fashion_model {
public:
  fashion_model(const graph::scope& s, model_options options);

  /// Float images in [0, 1] ([batch, 784]) from uint8 pixels.
  static graph::output pixels(const graph::scope& s, const graph::output& raw);

  /// The logits [batch, 10] of float images `x` [batch, 784]; a "moe"
  /// model gates with noise when `training` and sets `*moe` (its
  /// balancing loss and loads) when given.
  graph::output logits(const graph::scope& s, const graph::output& x,
                       bool training = true,
                       graph::moe_outputs* moe = nullptr) const;

  /// The weights and biases, in layer order.
  const std::vector<graph::output>& variables() const noexcept {
    return vars_;
  }

private:
  /// A weight of `dims` and a bias of its last dimension, fan-in `fan_in`.
  void add_layer(const graph::scope& s, const std::string& name,
                 std::vector<int64_t> dims, int64_t fan_in);

  /// x W + b with layer `layer`'s variables (from `first`), ReLU'd if
  /// `relu`.
  graph::output dense(const graph::scope& s, const graph::output& x,
                      size_t layer, bool relu) const;

  model_options options_;
  std::vector<graph::output> vars_;
  /// "moe": the gating weights; the experts' layers come first in vars_.
  graph::moe_gating gating_;
};

} // namespace actorflow::apps
