#pragma once

// Internal: TensorFlow's DataType and the engine's dtypes, for the readers
// and writers of TensorFlow's files (net's GraphDefs, ops' tensor bundles).

#include "actorflow/core/dtype.hpp"
#include "types.pb.h"

namespace actorflow::ops::detail {

/// TensorFlow's DataType of `x`; DT_INVALID for `invalid`.
tfproto::DataType to_proto(core::dtype x);

/// The engine's dtype of TensorFlow's `x`: a reference type as its value
/// type, a resource handle as a string (the engine names resources with
/// strings); invalid for types the engine lacks (quantized types).
core::dtype from_proto(tfproto::DataType x);

} // namespace actorflow::ops::detail
