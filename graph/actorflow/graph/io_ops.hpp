#pragma once

/// Ops that read data files.

#include <string>
#include <utility>
#include <vector>

#include "actorflow/core/dtype.hpp"
#include "actorflow/graph/output.hpp"
#include "actorflow/graph/scope.hpp"

namespace actorflow::graph {

/// Writes `tensors` under `names` to the checkpoint file `filename` (a
/// scalar string), atomically; run the returned operation as a target.
operation save(const scope& s, const output& filename,
               const std::vector<std::string>& names,
               const std::vector<output>& tensors);

/// The tensor `name` of the checkpoint file `filename`, of dtype `type`.
output restore(const scope& s, const output& filename, const std::string& name,
               core::dtype type);

/// What `make_saver` builds: feed the checkpoint's prefix to `filename`
/// and run `save` or `restore` as a target.
struct saver {
  output filename;
  operation save;
  operation restore;
  /// Each variable's own restore (name in the checkpoint, its Assign), for
  /// restoring what fits.
  std::vector<std::pair<std::string, operation>> restore_each;
  /// `restore` and `restore_each` from a file of actorflow's own format
  /// (AFCKPT2, what `save` wrote before), read for this release.
  operation restore_legacy;
  std::vector<std::pair<std::string, operation>> restore_each_legacy;
};

/// Save and restore for `variables` (name in the checkpoint, variable
/// reference) in TensorFlow's checkpoint format: `save` writes the tensor
/// bundle `PREFIX.index` and `PREFIX.data-00000-of-00001` (SaveV2), which
/// TensorFlow's Saver restores; `restore` assigns each variable from the
/// bundle by name (RestoreV2 checks the dtype, the Assign the shape).
saver make_saver(const scope& s,
                 const std::vector<std::pair<std::string, output>>& variables);

/// The lines of the text file `filename` (gzip'd or not) as a vector of
/// strings, without their ends, after `skip_header_lines` lines.
output read_text_lines(const scope& s, const output& filename,
                       int64_t skip_header_lines = 0);

/// The whole of the IDX file `filename` (a scalar string; MNIST's format,
/// gzip'd or not) as one tensor of `type`, which must be the file's.
output read_idx(const scope& s, const output& filename, core::dtype type);

} // namespace actorflow::graph
