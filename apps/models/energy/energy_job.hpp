#pragma once

// What both energy models start from: an engine, Fashion-MNIST in memory
// fed a batch at a time as floats in [0, 1], a session, and the files and
// JSON line they end with.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actorflow/actors/engine.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"
#include "models/energy/energy.hpp"
#include "models/fashion/fashion_data.hpp"

namespace actorflow::apps {

/// Rows [begin, begin + n) of uint8 images as floats in [0, 1].
core::tensor pixels(const core::tensor& images, int64_t begin, int64_t n);

/// `x` rounded to five decimals, for the JSON line.
double rounded(double x);

/// An engine, the data and a session: what both jobs start from.
struct energy_job {
  explicit energy_job(const energy_options& o);

  /// Reads the data and makes the --out folder.
  core::status load();

  /// Starts the session on the graph built so far and runs its initializer.
  core::status start();

  core::status run(const actors::feed_list& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<core::tensor>* out = nullptr);

  /// Runs `target` on every batch of the training set (fed to `x`) for
  /// epoch `epoch` of `epochs`, with a progress line; `*mean` gets the
  /// mean of `value` over the batches.
  core::status epoch(const std::string& what, int epoch, int epochs,
                     const graph::output& x, const std::string& target,
                     const graph::output& value, double* mean);

  /// Evaluates `value` (a scalar) on the test set fed to `x`.
  core::status on_test(const graph::output& x, const graph::output& value,
                       double* out);

  /// Writes `t` to `<out>/<name>.npy`.
  core::status save(const std::string& name, const core::tensor& t);

  /// The first ten test images and `rebuilt` (their reconstructions, [10,
  /// 784]) as reconstructions.npy [2, 10, 784].
  core::status save_reconstructions(const core::tensor& rebuilt);

  /// Prints the final JSON line, with where the files went.
  void print_line(nlohmann::ordered_json line) const;

  const energy_options& o_;
  actors::engine engine_;
  graph::scope scope_;
  fashion_data data_;
  core::tensor test_;
  std::unique_ptr<actors::session> session_;
};

} // namespace actorflow::apps
