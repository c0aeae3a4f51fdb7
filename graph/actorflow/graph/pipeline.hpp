#pragma once

/// Pipeline parallelism from loop iterations in flight (GPipe's schedule):
/// a batch split into micro-batches runs through a chain of stages, each
/// on its own device, one micro-batch per iteration of a while loop. With
/// more than one iteration in flight, micro-batch i+1 is in stage 1 while
/// micro-batch i is in stage 2; the loop's gradient runs the backward
/// stages the same way, in reverse, and sums each weight's gradient over
/// the micro-batches, so an optimizer applies it once per batch.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// Builds one stage in `s` (whose device is the stage's) from the values
/// of one micro-batch as the stage before left them (the pipeline's
/// inputs, for the first) and returns the values for the next stage. It
/// runs inside a while loop: make its variables beforehand, on its device.
using stage_fn = std::function<std::vector<output>(const scope&,
                                                   const std::vector<output>&)>;

/// A stage and the device it runs on ("cpu:1", "/job:worker/task:1").
struct pipeline_stage {
  std::string device;
  stage_fn build;
};

/// How `pipeline` splits and schedules the batch.
struct pipeline_options {
  /// Micro-batches per batch: the first dimension of every input must be
  /// a multiple of it.
  int64_t micro_batches = 4;
  /// Micro-batches in flight at once (TensorFlow's parallel_iterations),
  /// forward and backward: 1 runs them one after the other; 0 means one
  /// per stage.
  int64_t parallel_iterations = 0;
  /// The dtype of each result, where it differs from the first input's.
  std::vector<core::dtype> dtypes;
};

/// Runs `inputs` (each [batch, ...]) through `stages` micro-batch by
/// micro-batch and returns the last stage's results for the whole batch
/// (each [batch, ...], the micro-batches' rows in order). The loop's
/// control and its results live on the last stage's device, so a stage
/// starts micro-batch i only once the last stage may (at most
/// `parallel_iterations` ahead of it): a fast stage cannot flood a slow
/// one. The inputs are split on the first stage's device.
std::vector<output> pipeline(const scope& s,
                             const std::vector<pipeline_stage>& stages,
                             const std::vector<output>& inputs,
                             const pipeline_options& options = {});

} // namespace actorflow::graph
