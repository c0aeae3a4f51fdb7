#pragma once

// Internal: TensorFlow's tensor bundle, the checkpoint format of its
// SavedModels' variables, read by the RestoreV2 kernel.

#include <map>
#include <string>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::tfproto {
class BundleEntryProto;
} // namespace actorflow::tfproto

namespace actorflow::ops {

/// The tensors of a tensor bundle: `PREFIX.index`, a table of LevelDB's
/// SSTable format mapping each key to where its tensor lies, and the data
/// shards `PREFIX.data-NNNNN-of-MMMMM`. Every block and tensor read is
/// checked against its CRC-32C; a bad or truncated file is `data_loss`
/// naming it.
class tensor_bundle {
public:
  /// Reads the index of the bundle at `prefix` (what TensorFlow's
  /// `RestoreV2` takes: `dir/variables/variables` for a SavedModel).
  static core::status open(const std::string& prefix, tensor_bundle* out);

  /// The keys of the bundle's tensors, in order.
  std::vector<std::string> keys() const;

  /// The paths of the bundle's data shards.
  std::vector<std::string> data_files() const;

  /// The dtype of the tensor under `key`.
  core::status dtype_of(const std::string& key, core::dtype* out) const;

  /// Reads the tensor under `key`, which must be of dtype `type`.
  core::status read(const std::string& key, core::dtype type,
                    core::tensor* out) const;

private:
  core::status entry(const std::string& key,
                     tfproto::BundleEntryProto* out) const;

  std::string prefix_;
  int num_shards_ = 1;
  /// Key -> the serialized BundleEntryProto.
  std::map<std::string, std::string> entries_;
};

} // namespace actorflow::ops
