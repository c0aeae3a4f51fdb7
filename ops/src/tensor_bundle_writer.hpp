#pragma once

// Internal: writes TensorFlow's tensor bundle, the checkpoint format of its
// SavedModels' variables (SaveV2, MergeV2Checkpoints).

#include <map>
#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::ops {

/// Writes the tensors of one bundle shard: `PREFIX.data-00000-of-00001`
/// (the tensors' bytes, key by key) and `PREFIX.index` (a table of
/// LevelDB's SSTable format, uncompressed, from each key to where its
/// tensor lies, with its CRC-32C), as TensorFlow's BundleWriter does, so
/// TensorFlow's RestoreV2 and actorflow's `tensor_bundle` read it.
class tensor_bundle_writer {
public:
  /// Adds `value` under `key`; a key added twice is `invalid_argument`.
  core::status add(const std::string& key, const core::tensor& value);

  /// Writes the bundle at `prefix`, creating its directory.
  core::status write(const std::string& prefix) const;

private:
  std::map<std::string, core::tensor> tensors_;
};

/// MergeV2Checkpoints: the bundles at `prefixes` as one at `destination`
/// (every key of each; a key in two is `invalid_argument`). With
/// `delete_old_dirs`, the sources' files are removed, and their
/// directories with them where that leaves them empty.
core::status merge_tensor_bundles(const std::vector<std::string>& prefixes,
                                  const std::string& destination,
                                  bool delete_old_dirs);

} // namespace actorflow::ops
