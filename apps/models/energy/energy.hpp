#pragma once

// `actorflow train rbm` and `actorflow train autoencoder`: their options.

#include <cstdint>
#include <string>
#include <vector>

namespace actorflow::apps {

/// Options of `actorflow train rbm` and `actorflow train autoencoder`.
struct energy_options {
  std::string data_dir;
  /// rbm: {hidden units}; autoencoder: the encoder's layers, the last the
  /// code (784-1000-500-250-2 by default).
  std::vector<int64_t> hidden;
  /// Gibbs steps of contrastive divergence, and whether the chain
  /// persists across steps.
  int64_t cd_k = 1;
  bool persistent = false;
  /// rbm: epochs; autoencoder: epochs of each RBM's pretraining, then of
  /// fine-tuning by backpropagation.
  int epochs = 3;
  int finetune_epochs = 3;
  int batch = 100;
  double learning_rate = 0.1;
  int64_t seed = 1;
  int threads = 0;
  bool quiet = false;
  /// Where the .npy files for scripts/energy_to_png.py go.
  std::string out;
};

/// `actorflow train rbm`: an RBM with binary units on Fashion-MNIST
/// (pixels as the probabilities of binary visible units), the
/// reconstruction error of the training batches and of the test set per
/// epoch, then filters.npy and reconstructions.npy under `out`. Returns
/// the exit code.
int run_train_rbm(const energy_options& o);

/// `actorflow train autoencoder`: a deep autoencoder (Hinton &
/// Salakhutdinov 2006) pretrained greedily as a stack of RBMs (the code
/// layer's with linear units), unrolled, then fine-tuned by
/// backpropagation (Adam, cross entropy); the test reconstruction error
/// after pretraining and after each epoch, then codes.npy and labels.npy
/// (the test set's codes) and reconstructions.npy under `out`.
int run_train_autoencoder(const energy_options& o);

} // namespace actorflow::apps
