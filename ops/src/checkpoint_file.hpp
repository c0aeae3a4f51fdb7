#pragma once

// Internal: the checkpoint file, read and written by the Save and Restore
// kernels.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::ops {

/// The header a checkpoint file starts with, for a body of `size` bytes
/// (a multiple of 8) at `body`: magic, body length, CRC-32 of the body.
std::string checkpoint_header(const unsigned char* body, size_t size);

/// Writes `tensors` under `names` to `path` atomically: into a temporary
/// file beside it, flushed to disk, then renamed over `path`, so a reader
/// sees the old file or the new one, never a part. The file is a header
/// (magic, body length, CRC-32 of the body) and a Cap'n Proto body.
core::status write_checkpoint(const std::string& path,
                              const std::vector<std::string>& names,
                              const std::vector<core::tensor>& tensors);

/// Reads every tensor of the checkpoint at `path`. A missing file is
/// not_found; a truncated or corrupt one (wrong length, checksum or body)
/// is data_loss; both name the file.
core::status read_checkpoint(const std::string& path,
                             std::map<std::string, core::tensor>* out);

/// Decodes the bytes of a checkpoint file, naming it `path` in errors:
/// what `read_checkpoint` does once it has read the file.
core::status decode_checkpoint(std::string_view bytes, const std::string& path,
                               std::map<std::string, core::tensor>* out);

} // namespace actorflow::ops
