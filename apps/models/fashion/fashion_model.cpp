// Fashion-MNIST's classifiers: the MLP, the CNN and the mixture of
// experts, their variables and forward pass.

#include "models/fashion/fashion_model.hpp"

#include <cmath>

#include "actorflow/graph/array_ops.hpp"
#include "actorflow/graph/builder_ops.hpp"
#include "actorflow/graph/math_ops.hpp"
#include "actorflow/graph/nn_ops.hpp"

namespace actorflow::apps {

using core::dtype;

fashion_model::fashion_model(const graph::scope& s, model_options options)
  : options_(std::move(options)) {
  if (options_.kind == "moe") {
    // Each expert's two layers on its device, then the output layer; the
    // gating weights last (zero: every expert alike until trained).
    auto h1 = options_.hidden.at(0), h2 = options_.hidden.at(1);
    const auto& devices = options_.expert_devices;
    for (int64_t i = 0; i < options_.experts; ++i) {
      auto es = s.sub("expert_" + std::to_string(i));
      if (!devices.empty())
        es = es.with_device(devices[static_cast<size_t>(i) % devices.size()]);
      add_layer(es, "fc1", {784, h1}, 784);
      add_layer(es, "fc2", {h1, h2}, h1);
    }
    add_layer(s, "out", {h2, 10}, h2);
    gating_ = graph::moe_gating::make(s.sub("gating"), 784, options_.experts);
    auto gates = gating_.weights();
    vars_.insert(vars_.end(), gates.begin(), gates.end());
    return;
  }
  if (options_.kind == "cnn") {
    add_layer(s, "conv1", {5, 5, 1, 32}, 25);
    add_layer(s, "conv2", {5, 5, 32, 64}, 25 * 32);
    add_layer(s, "fc1", {7 * 7 * 64, 1024}, 7 * 7 * 64);
    add_layer(s, "fc2", {1024, 10}, 1024);
    return;
  }
  int64_t in = 784;
  for (size_t i = 0; i <= options_.hidden.size(); ++i) {
    auto out = i < options_.hidden.size() ? options_.hidden[i] : 10;
    add_layer(s, "fc" + std::to_string(i + 1), {in, out}, in);
    in = out;
  }
}

void fashion_model::add_layer(const graph::scope& s, const std::string& name,
                              std::vector<int64_t> dims, int64_t fan_in) {
  // Glorot uniform weights and zero biases, Keras' Dense/Conv2D defaults.
  auto fan_out = fan_in / dims[dims.size() - 2] * dims.back();
  auto bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  auto layer = s.sub(name);
  auto u = graph::random_uniform(
    layer.sub("weights_init"), dims, dtype::float32,
    {options_.seed, static_cast<int64_t>(vars_.size()) + 1});
  // u in [0, 1) -> [-bound, bound).
  auto w
    = graph::sub(layer, graph::mul(layer, u, graph::constant(layer, 2 * bound)),
                 graph::constant(layer, bound));
  vars_.push_back(graph::variable(layer.sub("weights"), w));
  vars_.push_back(graph::variable(
    layer.sub("bias"), graph::fill(layer.sub("bias_init"), {dims.back()},
                                   graph::constant(layer, 0.0))));
}

graph::output fashion_model::pixels(const graph::scope& s,
                                    const graph::output& raw) {
  // Standardised with the training set's pixel mean and deviation.
  constexpr double mean = 0.2860, deviation = 0.3530;
  return graph::sub(s,
                    graph::mul(s, graph::cast(s, raw, dtype::float32),
                               graph::constant(s, 1.0 / (255.0 * deviation))),
                    graph::constant(s, mean / deviation));
}

graph::output fashion_model::dense(const graph::scope& s,
                                   const graph::output& x, size_t layer,
                                   bool relu) const {
  auto y = graph::bias_add(s, graph::matmul(s, x, vars_[2 * layer]),
                           vars_[2 * layer + 1]);
  return relu ? graph::relu(s, y) : y;
}

graph::output fashion_model::logits(const graph::scope& s,
                                    const graph::output& x, bool training,
                                    graph::moe_outputs* moe) const {
  auto dense = [&](const graph::output& h, size_t layer, bool relu) {
    return this->dense(s, h, layer, relu);
  };
  if (options_.kind == "moe") {
    graph::moe_experts experts;
    experts.count = options_.experts;
    experts.output_size = options_.hidden.at(1);
    experts.devices = options_.expert_devices;
    experts.build
      = [this](const graph::scope& b, const graph::output& rows, int64_t i) {
          auto layer = static_cast<size_t>(2 * i);
          return this->dense(b, this->dense(b, rows, layer, true), layer + 1,
                             false);
        };
    graph::moe_options o;
    o.k = options_.k;
    o.seed = {options_.seed, 2000};
    if (!training)
      o.noise_scale = graph::constant(s, 0.0, core::dtype::float32);
    auto m = graph::moe_layer(s, x, gating_, experts, o);
    if (moe != nullptr)
      *moe = m;
    return dense(graph::relu(s, m.y), static_cast<size_t>(2 * options_.experts),
                 false);
  }
  if (options_.kind == "cnn") {
    graph::window_options same;
    graph::window_options pool;
    pool.stride_h = pool.stride_w = 2;
    auto conv = [&](const graph::output& h, size_t layer) {
      auto c = graph::conv2d(s, h, vars_[2 * layer], same);
      return graph::max_pool(
        s, graph::relu(s, graph::bias_add(s, c, vars_[2 * layer + 1])), 2, 2,
        pool);
    };
    auto h = graph::reshape(s, x, std::vector<int64_t>{-1, 28, 28, 1});
    h = conv(conv(h, 0), 1);
    h = graph::reshape(s, h, std::vector<int64_t>{-1, 7 * 7 * 64});
    return dense(dense(h, 2, true), 3, false);
  }
  auto h = x;
  auto layers = vars_.size() / 2;
  for (size_t i = 0; i < layers; ++i)
    h = dense(h, i, i + 1 < layers);
  return h;
}

} // namespace actorflow::apps
