#pragma once

/// Summary ops: serialized TensorFlow `Summary` protocol buffers, for a
/// summary writer (`interop::summary_writer`) to put in TensorBoard's event
/// files.

#include <string>
#include <vector>

#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// A summary with the scalar `value` under `tag` (TensorBoard's scalars).
output scalar_summary(const scope& s, const std::string& tag,
                      const output& value);

/// A summary with the histogram of every element of `values` under `tag`
/// (TensorBoard's histograms and distributions); a NaN or infinity in
/// them fails the step.
output histogram_summary(const scope& s, const std::string& tag,
                         const output& values);

/// The values of `summaries` in one summary (TensorFlow's `merge`).
output merge_summary(const scope& s, const std::vector<output>& summaries);

} // namespace actorflow::graph
