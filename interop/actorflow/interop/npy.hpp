#pragma once

/// Tensors in numpy's `.npy` format (format versions 1.0–3.0), the form
/// `np.save` writes and `np.load` reads: a magic string, a header that is a
/// Python dict literal (`descr`, `fortran_order`, `shape`), then the
/// elements in C order. Numeric and bool dtypes in little-endian order;
/// reading is strict and every malformed file is an `invalid_argument`
/// naming what is wrong.

#include <string>
#include <string_view>

#include "actorflow/core/status.hpp"
#include "actorflow/core/tensor.hpp"

namespace actorflow::interop {

/// Encodes `t` as `.npy` bytes (format 1.0, or 2.0 for a header over
/// 64 KiB); `unimplemented` for dtypes numpy has no code for (bfloat16,
/// string).
core::status encode_npy(const core::tensor& t, std::string* out);

/// Decodes `.npy` bytes into a tensor of its own.
core::status decode_npy(std::string_view bytes, core::tensor* out);

/// Writes `t` to `path` as `.npy`.
core::status save_npy(const core::tensor& t, const std::string& path);

/// Reads the `.npy` file `path`; errors name the file.
core::status load_npy(const std::string& path, core::tensor* out);

} // namespace actorflow::interop
