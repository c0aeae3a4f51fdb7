#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

#include "actorflow/core/status.hpp"
#include "actorflow/graph/graph.hpp"

namespace actorflow::interop {

/// Writes a TensorBoard event file, like TensorFlow's `FileWriter`: a
/// TFRecord file (each record its length, the data and masked CRC-32Cs)
/// of `Event` protocol buffers -- the file version, then summaries (the
/// output of summary ops, or scalars computed outside the graph) by step,
/// and the graph for TensorBoard's graph tab.
///
/// ~~~
/// std::unique_ptr<interop::summary_writer> w;
/// ACTORFLOW_RETURN_IF_ERROR(interop::summary_writer::open("runs/mlp", &w));
/// ACTORFLOW_RETURN_IF_ERROR(w->add_graph(s.graph_def()));
/// // each step: fetch a merged summary, then
/// ACTORFLOW_RETURN_IF_ERROR(w->add_summary(out[0].scalar_value<std::string>(),
/// step));
/// ~~~
///
/// Not thread-safe; each writer has a file of its own.
class summary_writer {
public:
  /// Creates `logdir` if it is missing and opens a new event file there,
  /// `events.out.tfevents.<seconds>.<host>.<pid>`.
  static core::status open(const std::string& logdir,
                           std::unique_ptr<summary_writer>* out);

  /// Adds a serialized `Summary` (a summary op's output) at `step`.
  core::status add_summary(const std::string& serialized, int64_t step);

  /// Adds one scalar `value` under `tag` at `step`.
  core::status add_scalar(const std::string& tag, double value, int64_t step);

  /// Adds `g` as a `GraphDef`, which TensorBoard's graph tab draws.
  core::status add_graph(const graph::graph& g);

  /// Writes what is buffered to the file.
  core::status flush();

  /// The event file's path.
  const std::string& path() const noexcept {
    return path_;
  }

private:
  summary_writer(std::string path, std::ofstream file);

  /// Writes one Event, serialized, as a TFRecord.
  core::status write_record(const std::string& data);

  std::string path_;
  std::ofstream file_;
};

} // namespace actorflow::interop
