#pragma once

// Fashion-MNIST's images and labels, read into memory.

#include <string>

#include "actorflow/actors/engine.hpp"
#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::apps {

/// Where Debian's dataset-fashion-mnist puts its files.
inline constexpr const char* fashion_mnist_dir
  = "/usr/share/datasets/fashion-mnist";

/// Fashion-MNIST in memory: uint8 images [n, 784] and uint8 labels [n].
struct fashion_data {
  core::tensor train_images, train_labels, test_images, test_labels;
};

/// Reads the four gzip'd IDX files of `dir` (empty: Debian's,
/// `fashion_mnist_dir`) with ReadIdx through a session of `e`. A missing
/// or damaged file fails naming it and where the dataset comes from.
core::status load_fashion_mnist(actors::engine& e, const std::string& dir,
                                fashion_data* out);

} // namespace actorflow::apps
