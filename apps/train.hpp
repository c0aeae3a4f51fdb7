#pragma once

#include <string>

namespace actorflow::apps {

/// Options of `actorflow train`.
struct train_options {
  std::string dataset = "fashion-mnist";
  std::string data_dir;
  std::string model = "mlp";
  std::string hidden = "512,256";
  std::string optimizer = "sgd";
  double learning_rate = 0.1;
  int epochs = 3;
  int batch = 128;
  int threads = 0;
  int64_t seed = 1;
  std::string checkpoint_dir = "checkpoints";
  int keep = 3;
  bool restore_what_fits = false;
  bool resume = false;
  bool quiet = false;
};

/// Trains a classifier on Fashion-MNIST through an input queue, with a
/// progress line, test accuracy and a checkpoint after each epoch; prints
/// one JSON line at the end. Returns the exit code.
int run_train(const train_options& options);

} // namespace actorflow::apps
