#pragma once

// Whole files read into memory.

#include <string>

#include "actorflow/core/status.hpp"

namespace actorflow::core {

/// Reads the file at `path` into `data` in one read of its size (a
/// character at a time, a 100 MB GraphDef took 90 ms). An error names
/// `what` and the path: not_found when it cannot be opened, data_loss when
/// reading fails (a directory, an I/O error).
status read_file(const std::string& path, std::string* data,
                 const std::string& what = "file");

} // namespace actorflow::core
